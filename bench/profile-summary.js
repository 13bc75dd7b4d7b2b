#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): where the samples went, by area and by function.
//   node bench/profile-summary.js bench/results/profiles/<file>.cpuprofile [--top 30]
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** Which part of the stack a function belongs to, from its script URL. */
function areaOf(url, root, own = []) {
  if (!url) return 'native/V8';
  let file = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
  if (file.startsWith('node:')) return 'node core';
  if (own.some((dir) => file.startsWith(dir + path.sep))) return 'mcp-express';
  if (file.startsWith(root)) file = path.relative(root, file);
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + 'node_modules/'.length).split('/');
    const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    if (['express', 'router', 'body-parser', 'raw-body', 'type-is', 'content-type', 'iconv-lite', 'on-finished', 'finalhandler', 'send', 'depd', 'qs', 'parseurl', 'accepts', 'negotiator', 'mime-types', 'http-errors', 'statuses', 'media-typer', 'path-to-regexp', 'debug', 'setprototypeof', 'ee-first', 'unpipe', 'content-disposition', 'cookie', 'etag', 'fresh', 'merge-descriptors', 'encodeurl', 'escape-html', 'vary', 'range-parser', 'serve-static', 'proxy-addr', 'forwarded', 'ipaddr.js', 'is-promise', 'cookie-signature', 'utils-merge', 'methods', 'safe-buffer'].includes(name)) {
      return 'express stack';
    }
    return name;
  }
  if (file.startsWith('dist/')) return 'mcp-express';
  if (file.startsWith('bench/')) return 'bench server';
  return file;
}

/** `own`: directories holding mcp-express builds (default `<root>/dist`); their functions are "ours". */
function summarizeProfile(profile, root = process.cwd(), own = [path.join(root, 'dist')]) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children || []) parent.set(child, node.id);

  // Self time per node from the samples and their time deltas (falls back to hit counts).
  const self = new Map();
  let total = 0;
  if (profile.samples && profile.timeDeltas) {
    for (let i = 0; i < profile.samples.length; i++) {
      const dt = profile.timeDeltas[i + 1] ?? 0;
      self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
      total += dt;
    }
  } else {
    for (const node of profile.nodes) {
      self.set(node.id, node.hitCount || 0);
      total += node.hitCount || 0;
    }
  }

  const keyOf = (node) => {
    const f = node.callFrame;
    return `${f.functionName || '(anonymous)'}\t${f.url}\t${f.lineNumber + 1}`;
  };
  const functions = new Map();
  const areas = new Map();
  let idle = 0;
  for (const [id, time] of self) {
    const node = byId.get(id);
    const name = node.callFrame.functionName;
    if (name === '(idle)') {
      idle += time;
      continue;
    }
    const key = keyOf(node);
    const entry = functions.get(key) ?? { key, self: 0, total: 0, area: areaOf(node.callFrame.url, root, own) };
    entry.self += time;
    functions.set(key, entry);
    const area = name === '(garbage collector)' ? 'GC' : name === '(program)' ? '(program)' : entry.area;
    areas.set(area, (areas.get(area) ?? 0) + time);
  }
  // Inclusive time per function: each sample counts once for every distinct function on its stack.
  for (const [id, time] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at));
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = functions.get(key) ?? { key, self: 0, total: 0, area: areaOf(byId.get(at).callFrame.url, root, own) };
      entry.total += time;
      functions.set(key, entry);
    }
  }
  const busy = total - idle;
  const describe = (entry) => {
    const [name, url, line] = entry.key.split('\t');
    let where = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
    if (where.startsWith(root)) where = path.relative(root, where);
    return { name, where: where ? `${where}:${line}` : '', area: entry.area, selfPct: (100 * entry.self) / busy, totalPct: (100 * entry.total) / busy };
  };
  return {
    busyMs: busy / 1000,
    idlePct: (100 * idle) / total,
    areas: [...areas].map(([area, time]) => ({ area, pct: (100 * time) / busy })).sort((a, b) => b.pct - a.pct),
    bySelf: [...functions.values()].sort((a, b) => b.self - a.self).map(describe),
    byTotal: [...functions.values()]
      .filter((e) => e.area === 'mcp-express')
      .sort((a, b) => b.total - a.total)
      .map(describe),
  };
}

function printProfileSummary(summary, top = 30) {
  const pct = (value) => `${value.toFixed(1).padStart(5)} %`;
  console.log(`busy ${summary.busyMs.toFixed(0)} ms (idle ${summary.idlePct.toFixed(1)} % of the profile); shares below are of busy time\n`);
  console.log('by area (self time):');
  for (const { area, pct: p } of summary.areas.slice(0, 15)) console.log(`  ${pct(p)}  ${area}`);
  console.log(`\ntop ${top} functions by self time:`);
  for (const f of summary.bySelf.slice(0, top)) console.log(`  ${pct(f.selfPct)} self ${pct(f.totalPct)} total  ${f.name}  ${f.where}`);
  console.log(`\nmcp-express functions by inclusive time:`);
  for (const f of summary.byTotal.slice(0, top)) console.log(`  ${pct(f.totalPct)} total ${pct(f.selfPct)} self  ${f.name}  ${f.where}`);
}

module.exports = { summarizeProfile, printProfileSummary };

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node bench/profile-summary.js <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const at = process.argv.indexOf('--top');
  const top = at > 0 ? Number(process.argv[at + 1]) : 30;
  const root = path.join(__dirname, '..');
  const own = [path.join(root, 'dist'), ...[process.env.BENCH_DIST, process.env.BENCH_ALT_DIST].filter(Boolean).map((dir) => path.resolve(dir))];
  printProfileSummary(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), root, own), top);
}
