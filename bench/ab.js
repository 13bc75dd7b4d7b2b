#!/usr/bin/env node
// An A/B of builds in process: many short bench/in-process.js processes of one target, alternating between the
// builds, each process's least CPU per call collected. On these shared 2-core machines a whole process runs either
// at its speed or about 1.7 times slower (the floor at 6.5 or 11-12 µs, a process at a time), so one process per
// build says little; the lower quantiles of a few dozen alternating processes compare builds in the same quiet
// stretches. The promises per call (counted by in-process.js, exact) are printed beside: a change of a promise step
// or two shows there even when the time cannot tell.
//
//   node bench/ab.js --target node-mcp-2026 --builds <dist/cjs>,<dist/cjs> [--processes 24] [--requests 6000] [--rounds 4]
//   node bench/ab.js --smoke       # dist/cjs (or BENCH_DIST) against itself, two processes each, few calls (CI)
//
// A build is a BENCH_DIST directory (a dist/cjs, or `npx tsc -p tsconfig.build.json --module commonjs
// --moduleResolution node --outDir node_modules/.ab/<name>` of a patched tree, with a package.json of
// {"type":"commonjs"} beside it: inside node_modules/, so that its imports resolve). Prints, per build, every
// process's figure sorted, its lowest quarter's median, and the difference of those between the first build and
// each other. A diagnostic: not part of `npm run bench`, and it writes no results file.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, target: { type: 'string' }, builds: { type: 'string' }, processes: { type: 'string' }, requests: { type: 'string' }, rounds: { type: 'string' } } });

/** One in-process run of `target` with `build`: its least CPU per call and its promises per call. */
function measure(build, target, requests, rounds, scratch) {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'in-process.js'), '--targets', target, '--requests', String(requests), '--rounds', String(rounds)], {
    cwd: kit.root,
    encoding: 'utf8',
    env: { ...process.env, BENCH_DIST: build, BENCH_SMOKE_DIR: scratch },
  });
  if (run.status !== 0) throw new Error(`bench/in-process.js with ${build} failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  // Its results file (a run of chosen targets writes to BENCH_SMOKE_DIR, named by its pid): the figures unrounded.
  const file = path.join(scratch, `mcp-express-bench-smoke-in-process-${run.pid}.json`);
  const result = JSON.parse(fs.readFileSync(file, 'utf8')).results.find((r) => r.target === target);
  fs.rmSync(file);
  return { cpuUs: result.cpuUsPerCall, promises: result.promisesPerCall };
}

/** The median of the lowest quarter (at least one figure): the quiet processes' figure. */
function lowQuarter(figures) {
  const sorted = [...figures].sort((a, b) => a - b);
  return kit.median(sorted.slice(0, Math.max(1, Math.round(sorted.length / 4))));
}

kit.runScenario(
  'ab',
  async (smoke) => {
    const target = values.target ?? 'node-mcp-2026';
    const own = process.env.BENCH_DIST || 'dist/cjs';
    const builds = (values.builds ?? (smoke ? `${own},${own}` : '')).split(',').filter(Boolean).map((build) => path.resolve(kit.root, build));
    if (builds.length < 2) throw new Error('--builds needs two or more BENCH_DIST directories, separated by commas');
    for (const build of builds) if (!fs.existsSync(path.join(build, 'index.js'))) throw new Error(`${build} has no index.js (give a dist/cjs directory)`);
    const processes = Number(values.processes ?? (smoke ? 2 : 24));
    const requests = Number(values.requests ?? (smoke ? 200 : 6000));
    const rounds = Number(values.rounds ?? (smoke ? 1 : 4));
    for (const [name, value] of [['--processes', processes], ['--requests', requests], ['--rounds', rounds]]) {
      if (!(Number.isInteger(value) && value >= 1)) throw new TypeError(`${name} must be a whole number of at least 1`);
    }
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-ab-'));
    const figures = builds.map(() => ({ cpuUs: [], promises: new Set() }));
    try {
      for (let i = 0; i < processes; i++) {
        builds.forEach((build, b) => {
          const { cpuUs, promises } = measure(build, target, requests, rounds, scratch);
          figures[b].cpuUs.push(cpuUs);
          figures[b].promises.add(promises);
        });
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    console.log(`${target}: ${processes} processes per build, alternating; least CPU per call of each process (µs), sorted`);
    const base = lowQuarter(figures[0].cpuUs);
    builds.forEach((build, b) => {
      const f = figures[b];
      const low = lowQuarter(f.cpuUs);
      const change = b === 0 ? '' : `, ${low - base >= 0 ? '+' : ''}${(low - base).toFixed(2)} µs against the first`;
      console.log(`\n${path.relative(kit.root, build) || build}: lowest quarter ${low.toFixed(2)} µs${change}; promises per call ${[...f.promises].join(', ')}`);
      console.log(`  ${[...f.cpuUs].sort((x, y) => x - y).map((x) => x.toFixed(1)).join(' ')}`);
    });
    if (smoke) console.log('\nab smoke: every process of each build measured: OK');
  },
  3600,
);
