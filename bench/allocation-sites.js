// Names the V8 allocation sites a live Node process has pretenured, for `bench/run.js --gc-profile`.
//
// `--trace-pretenuring-statistics` reports the sites V8 decides to tenure (allocate in the old generation) by address
// only. gdb can print a V8 object of a live process with the `_v8_internal_Print_Object` helper Node exports; the
// print of a site says what it makes (an array of some elements kind, or an object literal and its boilerplate) and
// lists the optimised code that depends on its decision, and `--perf-basic-prof`'s map (/tmp/perf-<pid>.map) names
// that code's function, with the functions it inlined. The printing goes to the process's own stdout, which the
// caller reads (`output()` returns all of it so far).
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { perfMapFile } = require('./native-summary.js');

const PRINT = '_Z25_v8_internal_Print_ObjectPv';

/** True when gdb is installed (the naming needs it; the counting does not). */
function gdbWorks() {
  return spawnSync('gdb', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Settles once `output()` has stopped growing for `quietMs` (at most `maxMs`). */
async function settled(output, quietMs = 300, maxMs = 5000) {
  const start = Date.now();
  let length = output().length;
  let since = Date.now();
  while (Date.now() - start < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = output().length;
    if (now !== length) {
      length = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) break;
  }
}

/** Prints V8 objects of process `pid` (tagged addresses) and returns what the process wrote meanwhile. */
async function printObjects(pid, addresses, output) {
  const before = output().length;
  const args = ['-p', String(pid), '-batch', '-nx'];
  for (const address of addresses) args.push('-ex', `call (void)${PRINT}((void*)${address})`);
  args.push('-ex', 'call (int)fflush(0)');
  // Not spawnSync: the process blocks writing a long print to a full pipe unless this event loop keeps reading it.
  const gdb = spawn('gdb', args, { stdio: 'ignore', timeout: 60_000 });
  await new Promise((resolve) => gdb.once('close', resolve));
  await settled(output);
  return output().slice(before);
}

/** The function (and start address) of each piece of JIT code in `--perf-basic-prof`'s map. */
function readPerfMap(pid) {
  const file = perfMapFile(pid);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
    });
}

/** The last map entry that covers `address` (code is never unmapped from the file, only superseded). */
function nameAt(map, address) {
  let found;
  for (const entry of map) if (address >= entry.start && address < entry.end) found = entry.name;
  return found;
}

/**
 * Shortens `JS:*name /abs/path/file.js:12:3` to `name (file.js:12)`: a file of an mcp-express build (under one of
 * `own`) by its path in the build (`session/sse-channel.js`, whichever build was measured), any other relative to
 * `root`.
 */
function shortName(name, { root, own }) {
  const match = /^JS:[*~^+-]?(\S*) (.*?):(\d+):\d+$/.exec(name ?? '');
  if (!match) return name ?? 'unknown code';
  const dir = own.find((d) => match[2].startsWith(`${d}/`));
  const file = dir ? match[2].slice(dir.length + 1).replace(/^(cjs|esm)\//, '') : match[2].startsWith(`${root}/`) ? match[2].slice(root.length + 1) : match[2];
  return `${match[1] || '(anonymous)'} (${file}:${match[3]})`;
}

/** The printed blocks of `text` that start with `0x<address>: [<type>]`, by address (as a BigInt). */
function blocksOf(text, type) {
  const blocks = new Map();
  const header = new RegExp(`^(0x[0-9a-f]+): \\[${type}\\]`, 'gm');
  const starts = [...text.matchAll(header)];
  for (const [i, match] of starts.entries()) {
    blocks.set(BigInt(match[1]), text.slice(match.index, i + 1 < starts.length ? starts[i + 1].index : undefined));
  }
  return blocks;
}

/**
 * For each site address: what it allocates and the optimised functions depending on it (each with what it inlined).
 * Three gdb sessions: the sites, their lists of dependent code, the code objects. `output` returns everything the
 * process has printed so far; `dirs` ({ root, own }) shorten file names (see shortName).
 */
async function nameSites(pid, sites, output, dirs) {
  const map = readPerfMap(pid);
  const siteBlocks = blocksOf(await printObjects(pid, sites, output), 'AllocationSite');
  const dependentOf = new Map();
  for (const site of sites) {
    const address = /- dependent code: (0x[0-9a-f]+)/.exec(siteBlocks.get(BigInt(site)) ?? '')?.[1];
    if (address) dependentOf.set(site, address);
  }
  const lists = blocksOf(await printObjects(pid, [...new Set(dependentOf.values())], output), 'WeakArrayList');
  const codesOf = new Map();
  for (const [site, list] of dependentOf) {
    codesOf.set(site, [...(lists.get(BigInt(list)) ?? '').matchAll(/\[weak\] (0x[0-9a-f]+) <Code/g)].map((m) => m[1]));
  }
  const codes = blocksOf(await printObjects(pid, [...new Set([...codesOf.values()].flat())], output), 'Code');
  return sites.map((site) => {
    const block = siteBlocks.get(BigInt(site));
    const makes = /- transition_info: ([^\n]*)/.exec(block ?? '')?.[1]?.replace(/ 0x[0-9a-f]+ /, ' ').replace(/<Object map = 0x[0-9a-f]+>/, '').trim();
    const functions = (codesOf.get(site) ?? []).map((code) => {
      const printed = codes.get(BigInt(code)) ?? '';
      const entry = /code_entry_point: (0x[0-9a-f]+)/.exec(printed)?.[1];
      const inlinedBlock = /Inlined functions \(count = \d+\)\n((?:[^\n]*SharedFunctionInfo[^\n]*\n)*)/.exec(printed)?.[1] ?? '';
      const inlined = [...inlinedBlock.matchAll(/<SharedFunctionInfo ?([^>]*)>/g)].map((m) => m[1] || '(anonymous)');
      return { function: entry ? shortName(nameAt(map, parseInt(entry, 16)), dirs) : 'unknown code', inlined };
    });
    return { site, makes: makes ?? 'not printed (the site moved or was freed)', functions };
  });
}

module.exports = { gdbWorks, nameSites };
