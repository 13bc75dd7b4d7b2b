#!/usr/bin/env node
// Two small loops that show what made the in-process harness promote whole requests (docs/benchmarks.md,
// "Collections that churn, closures kept on a request"), each beside the form that does not. Every pattern runs in
// a child process under --trace-gc-nvp; the figure is the bytes V8 promoted per scavenge over the last ten.
//
//   node bench/gc-survival.js            # every pattern, three processes each
//   node bench/gc-survival.js map-churn  # one pattern
//
// Which ones promote depends on the Node version (see the docs); the loops themselves are deterministic.
'use strict';

const { spawnSync } = require('node:child_process');

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

/** KB promoted per scavenge over the last ten scavenges of one process running `body`. */
function promotedKbPerScavenge(body) {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '-e', `${PRELUDE}\n${body}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`the loop failed: ${run.stderr}`);
  const promoted = run.stdout
    .split('\n')
    .filter((line) => / gc=s /.test(line))
    .map((line) => Number(/ promoted=(\d+)/.exec(line)?.[1] ?? NaN))
    .slice(-10);
  if (promoted.length === 0 || promoted.some(Number.isNaN)) throw new Error('no scavenge was traced');
  return promoted.reduce((sum, bytes) => sum + bytes, 0) / promoted.length / 1024;
}

const wanted = process.argv.slice(2);
for (const name of wanted) if (!PATTERNS[name]) throw new Error(`unknown pattern ${name}; one of ${Object.keys(PATTERNS).join(', ')}`);
console.log(`Node ${process.version}: KB promoted per scavenge (last ten scavenges), three processes each`);
for (const [name, body] of Object.entries(PATTERNS)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const figures = [0, 1, 2].map(() => promotedKbPerScavenge(body).toFixed(0));
  console.log(`  ${name.padEnd(14)} ${figures.join('  ')}`);
}
