#!/usr/bin/env node
// The whole bench (npm run bench): throughput (bench/run.js), resume (bench/resume.js), idle-session memory
// (bench/memory.js), subscriptions/listen fan-out (bench/fanout.js), Redis round trips (bench/redis-trips.js), socket
// writes per call (bench/socket-writes.js), the JavaScript of a call without sockets (bench/in-process.js), CPU
// profiles of the plain node:http targets and of the fan-out, then docs/benchmarks.md and docs/benchmarks.svg
// (scripts/bench-chart.js). Each step is a child process; the first that fails stops the run with its exit code.
//
//   npm run build && npm run bench          # about 10 minutes on a 2-core machine
//   npm run bench:smoke                     # = node bench/all.js --smoke: each step briefly, every answer checked
//
// Options: --smoke; --skip <step,step> (throughput, resume, memory, fanout, redis-trips, socket-writes, in-process,
// session-layer, profiles, native-profiles, gc-profiles, gc-survival, instructions and ab (smoke only), chart);
// native-profiles is skipped with a notice where perf does not work;
// --head: measure the last commit, not the working tree: `git archive HEAD` is built (CommonJS) in a temp
// directory and every step uses it (BENCH_DIST), so edits in progress in lib/ do not get measured.
// bench/run.js options can be given through its environment variables (BENCH_ROUNDS, BENCH_DURATION...).
'use strict';

const { execFileSync, execSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { perfWorks } = require('./native-summary.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, skip: { type: 'string' }, head: { type: 'boolean' } } });
const smoke = Boolean(values.smoke);
const skip = new Set((values.skip ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const root = path.join(__dirname, '..');

/** Profiled targets: where the time of each node:http goal goes (their summaries go into docs/benchmarks.md). */
const PROFILED = ['node-floor', 'node-mcp-2026', 'node-mcp-session', 'node-mcp-session-memory', 'node-mcp-session-redis'];
/** perf-profiled targets: the floor and the two node:http goals, kernel and V8's native code included. */
const NATIVE_PROFILED = ['node-floor', 'node-mcp-2026', 'node-mcp-session'];
/** GC-profiled targets: what V8 promotes per request, and the allocation sites it pretenures. */
const GC_PROFILED = ['node-mcp-2026', 'node-mcp-session', 'node-mcp-session-progress', 'node-mcp-session-memory'];

const steps = smoke
  ? [
      ['throughput', ['bench/run.js', '--smoke']],
      ['resume', ['bench/resume.js', '--smoke']],
      ['memory', ['bench/memory.js', '--smoke']],
      ['fanout', ['bench/fanout.js', '--smoke']],
      ['redis-trips', ['bench/redis-trips.js', '--smoke']],
      ['socket-writes', ['bench/socket-writes.js', '--smoke']],
      ['in-process', ['bench/in-process.js', '--smoke']],
      ['session-layer', ['bench/session-layer.js', '--smoke']],
      ['gc-profiles', ['bench/run.js', '--gc-profile', 'node-mcp-session', '--duration', '1', '--warmup', '1']],
      // The diagnostic of docs/benchmarks.md's "Collections that churn": it runs and traces (no figure is checked).
      ['gc-survival', ['bench/gc-survival.js', 'bound-field']],
      // The instruction counter for A/Bs ("Counting instructions"): it runs under valgrind and its counts parse.
      ['instructions', ['bench/instructions.js', '--smoke']],
      // The A/B of builds in process ("Promise steps"): it runs and its figures parse.
      ['ab', ['bench/ab.js', '--smoke']],
      // docs/benchmarks.md and docs/benchmarks.svg are what the committed bench/results give (no hand-edited figures).
      ['chart', ['scripts/bench-chart.js', '--check']],
    ]
  : [
      ['throughput', ['bench/run.js', '--rounds', process.env.BENCH_ROUNDS ?? '3']],
      ['resume', ['bench/resume.js']],
      ['memory', ['bench/memory.js', '--heap-snapshot']],
      ['fanout', ['bench/fanout.js']],
      ['redis-trips', ['bench/redis-trips.js']],
      ['socket-writes', ['bench/socket-writes.js']],
      ['in-process', ['bench/in-process.js']],
      ['session-layer', ['bench/session-layer.js']],
      ...PROFILED.map((target) => ['profiles', ['bench/run.js', '--profile', target, '--duration', '6', '--warmup', '2']]),
      ['profiles', ['bench/fanout.js', '--profile', '--notifications', '3']],
      // perf profiles (kernel and native code too): only where perf works (Linux, root or perf_event_paranoid <= 1).
      ...NATIVE_PROFILED.map((target) => ['native-profiles', ['bench/run.js', '--native-profile', target, '--duration', '5', '--warmup', '2']]),
      // GC tracing: bytes promoted per request and the sites V8 pretenures (named with gdb where it is installed).
      ...GC_PROFILED.map((target) => ['gc-profiles', ['bench/run.js', '--gc-profile', target, '--duration', '5', '--warmup', '2']]),
      ['chart', ['scripts/bench-chart.js']],
    ];

/** Builds the CommonJS output of HEAD's lib/ in a temp directory; returns its dist/cjs and the commit. */
function buildHead() {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-express-bench-${commit}-`));
  console.log(`== bench: building commit ${commit} in ${dir}`);
  execSync(`git archive HEAD lib tsconfig.json tsconfig.build.json package.json | tar -x -C ${JSON.stringify(dir)}`, { cwd: root, stdio: 'inherit' });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--module', 'commonjs', '--moduleResolution', 'node', '--outDir', 'dist/cjs'], { cwd: dir, stdio: 'inherit' });
  fs.writeFileSync(path.join(dir, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
  return { dist: path.join(dir, 'dist/cjs'), commit };
}

let headDir;
if (values.head) {
  const { dist, commit } = buildHead();
  headDir = path.dirname(path.dirname(dist));
  process.env.BENCH_DIST = dist;
  process.env.BENCH_COMMIT = commit;
}
// A smoke run's results go to a temp directory of its own, removed at the end.
if (smoke && !process.env.BENCH_SMOKE_DIR) process.env.BENCH_SMOKE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-bench-smoke-'));
const removeTemporaryFiles = () => {
  if (headDir) fs.rmSync(headDir, { recursive: true, force: true });
  if (smoke) fs.rmSync(process.env.BENCH_SMOKE_DIR, { recursive: true, force: true });
};

const started = Date.now();
if (!skip.has('native-profiles') && steps.some(([name]) => name === 'native-profiles') && !perfWorks()) {
  console.log('\n== bench native-profiles: skipped (perf does not work here: install linux-perf, run as root or lower kernel.perf_event_paranoid)');
  skip.add('native-profiles');
}
for (const [name, args] of steps) {
  if (skip.has(name)) continue;
  console.log(`\n== bench ${name}: node ${args.join(' ')}`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\nbench ${name} failed (exit ${result.status ?? result.signal})`);
    removeTemporaryFiles();
    process.exit(result.status || 1);
  }
}
removeTemporaryFiles();
console.log(`\nbench${smoke ? ' smoke' : ''}: done in ${Math.round((Date.now() - started) / 1000)} s`);
