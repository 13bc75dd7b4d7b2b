#!/usr/bin/env node
// Two small loops that show what made the in-process harness promote whole requests (docs/benchmarks.md,
// "Collections that churn, closures kept on a request"), each beside the form that does not. Every pattern runs in
// a child process under --trace-gc-nvp; the figure is the bytes V8 promoted per scavenge over the last ten.
//
//   node bench/gc-survival.js            # every pattern, three processes each
//   node bench/gc-survival.js map-churn  # one pattern
//   node bench/gc-survival.js --targets node-mcp-session,node-least-mcp-session
//                                        # in-process targets (bench/in-process.js), one per process, three each
//
// Which patterns promote depends on the Node version (see the docs); the loops themselves are deterministic. For a
// target, 13-25 KB per scavenge is what a harness that keeps nothing of a call promotes here; hundreds of KB mean
// finished calls are being kept (BENCH_DIST measures another build, as bench/in-process.js does).
'use strict';

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');

const PATTERNS = {
  /** A long-lived Map whose table has aged into the old generation; one set and one delete per iteration. */
  'map-churn': `
    const m = new Map();
    for (let i = 0; i < 64; i++) m.set(i, { i });
    let junk; for (let j = 0; j < 3e6; j++) junk = { j };
    let s = 0;
    for (let i = 64; i < 400000; i++) { m.set(i, { i, big: mk() }); m.delete(i - 64); s += m.get(i).i; }`,
  /** The same with a null-prototype object keyed by the number. */
  'object-churn': `
    const m = Object.create(null);
    for (let i = 0; i < 64; i++) m[i] = { i };
    let junk; for (let j = 0; j < 3e6; j++) junk = { j };
    let s = 0;
    for (let i = 64; i < 400000; i++) { m[i] = { i, big: mk() }; delete m[i - 64]; s += m[i].i; }`,
  /** Each new object is given a closure that captures a context, then used. */
  'closure-field': `
    class F { constructor(p) { this.p = p; this.big = mk(); this.emit = undefined; } send(m) { return m + this.p; } }
    let s = 0;
    for (let i = 0; i < 300000; i++) { const a = new F(i); a.emit = (m) => a.send(m); s += a.send(1); }`,
  /** The same with a bound method. */
  'bound-field': `
    class F { constructor(p) { this.p = p; this.big = mk(); this.emit = undefined; } send(m) { return m + this.p; } }
    let s = 0;
    for (let i = 0; i < 300000; i++) { const a = new F(i); a.emit = a.send.bind(a); s += a.send(1); }`,
};

const PRELUDE = 'const mk = () => new Array(20).fill(0).map((_, i) => ({ i }));';

/** KB promoted per scavenge, and ms per scavenge, over the last `last` scavenges of one traced Node process. */
function traced(args, last) {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`the traced process failed: ${run.stderr || run.stdout.slice(-2000)}`);
  const scavenges = run.stdout
    .split('\n')
    .filter((line) => / gc=s /.test(line))
    .map((line) => ({ promoted: Number(/ promoted=(\d+)/.exec(line)?.[1] ?? NaN), pause: Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? NaN) }))
    .slice(-last);
  if (scavenges.length === 0 || scavenges.some((s) => Number.isNaN(s.promoted) || Number.isNaN(s.pause))) throw new Error('no scavenge was traced');
  const mean = (key) => scavenges.reduce((sum, s) => sum + s[key], 0) / scavenges.length;
  return { kb: mean('promoted') / 1024, ms: mean('pause') };
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { targets: { type: 'string' } } });
if (values.targets) {
  const inProcess = path.join(__dirname, 'in-process.js');
  console.log(`Node ${process.version}: in-process targets, one per process: KB promoted per scavenge and ms per scavenge (last fifteen), three processes each`);
  for (const target of values.targets.split(',')) {
    const figures = [0, 1, 2].map(() => traced([inProcess, '--targets', target, '--rounds', '2', '--requests', '8000'], 15));
    console.log(`  ${target.padEnd(28)} ${figures.map((f) => `${f.kb.toFixed(0)} KB ${f.ms.toFixed(2)} ms`).join('   ')}`);
  }
} else {
  for (const name of positionals) if (!PATTERNS[name]) throw new Error(`unknown pattern ${name}; one of ${Object.keys(PATTERNS).join(', ')}`);
  console.log(`Node ${process.version}: KB promoted per scavenge (last ten scavenges), three processes each`);
  for (const [name, body] of Object.entries(PATTERNS)) {
    if (positionals.length && !positionals.includes(name)) continue;
    const figures = [0, 1, 2].map(() => traced(['-e', `${PRELUDE}\n${body}`], 10).kb.toFixed(0));
    console.log(`  ${name.padEnd(14)} ${figures.join('  ')}`);
  }
}
