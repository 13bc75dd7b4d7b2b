#!/usr/bin/env node
// Machine instructions per tools/call, counted by valgrind's callgrind: bench/in-process.js's calls, counted rather
// than timed. A count hardly moves with what else the machine runs, where CPU time per call needs many alternating
// rounds on a shared 2-core machine and still blurs a difference of 5 %; but it moves with the directory a build
// lies in (below), so two builds are told apart only by more than the spread of their copies' counts, a few per
// cent for the session call (docs/benchmarks.md, "Counting instructions"). It says nothing about cache misses
// or the kernel: a change that saves instructions may still cost time under load, so a throughput A/B has the last
// word.
//
//   node bench/instructions.js [--targets node-mcp-session] [--builds <dist/cjs>,<dist/cjs>] [--calls 10000,18000] [--copies 3]
//   node bench/instructions.js --smoke          # one target, few calls, one copy: the tool runs and its counts parse (CI)
//
// Each count is one process under valgrind (about a minute): `node --predictable --hash-seed=1 --random-seed=1
// bench/in-process.js --targets <target> --requests <n> --rounds 1`. V8's predictable mode compiles and collects
// garbage on the main thread and leaves out its heuristics that read the clock; with the seeds fixed, the count
// repeats to about ten thousand instructions in billions, alone or beside other jobs. (Without the seeds each
// process's own hash seed moved it by 1-3 %; with `--single-threaded` instead of `--predictable`, a run beside
// another job counted 4 % more, the garbage collector steered by the clock.) The package's own timers (session
// sweeps, keep-alive) still fire by the clock and are counted: a count taken while the test suite ran on both
// cores came out 3 % higher, so compare builds in one run on an otherwise quiet machine. The harness warms up with
// min(n, 2,000) calls, then makes n; two sizes of n give the instructions of one call as the difference of the two
// counts over the difference of the calls, with start-up taken out. Both sizes are large (10,000 and 18,000 by
// default): V8 still compiles after thousands of calls, and between 4,000 and 8,000 calls that compiling was a
// quarter of what the difference counted. `--builds` names the builds to compare (BENCH_DIST directories, as
// bench/in-process.js takes them; default dist/cjs). A count depends on where the build lies, too: the same files
// in four directories counted 100,529, 100,850, 108,021 and 101,013 instructions per session call, and in six
// others 95,514-101,249 (the directory's name reaches V8 as the scripts' names, and with it some of V8's choices of
// what to optimise). So each build is counted as `--copies` copies (3 by default) in directories of different
// names beside the project's node_modules (where the build's own imports resolve; the same names in every run, so
// a run repeats), alternating between builds; every copy's count is printed with their median and least. A
// difference of a few per cent between two builds is within that spread: more copies narrow it. Needs valgrind
// (Debian: apt-get install valgrind); without it the smoke run is skipped with a notice. A diagnostic, like
// bench/gc-survival.js: not part of `npm run bench`, and it writes no results file.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, targets: { type: 'string' }, builds: { type: 'string' }, calls: { type: 'string' }, copies: { type: 'string' } } });

/** valgrind's version line, or undefined when it is not installed. */
function valgrindVersion() {
  const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

/** Calls bench/in-process.js makes for `--requests n --rounds 1`: its warm-up (min(n, 2000)), then n. */
function callsMade(n) {
  return Math.min(n, 2000) + n;
}

/** `copies` copies of a build's directory, each under a name of its own in `dir`; returns their paths. */
function copyBuild(build, index, copies, dir) {
  return Array.from({ length: copies }, (_, copy) => {
    const to = path.join(dir, `build${index + 1}-copy${copy + 1}`);
    fs.cpSync(build, to, { recursive: true });
    return to;
  });
}

/** Instructions of one process running `calls` calls of `target` (after the harness's warm-up) with `build`. */
function count(target, build, calls, resultsDir) {
  const run = spawnSync(
    'valgrind',
    ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--smc-check=all-non-file', process.execPath, '--predictable', '--hash-seed=1', '--random-seed=1', path.join(__dirname, 'in-process.js'), '--targets', target, '--requests', String(calls), '--rounds', '1'],
    { cwd: kit.root, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, BENCH_DIST: build, BENCH_SMOKE_DIR: resultsDir } },
  );
  const collected = /Collected\s*:\s*(\d+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || !collected) throw new Error(`${target} (${build}, ${calls} calls): the counted process failed (exit ${run.status ?? run.signal}): ${(run.stdout + run.stderr).slice(-1500)}`);
  return Number(collected[1]);
}

kit.runScenario(
  'instructions',
  async (smoke) => {
    const version = valgrindVersion();
    if (!version) {
      if (smoke) {
        console.log('instructions: skipped (valgrind is not installed; Debian: apt-get install valgrind)');
        return;
      }
      throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
    }
    const targets = (values.targets ?? (smoke ? 'node-mcp-2026' : 'node-floor,node-mcp-2026,node-mcp-session')).split(',');
    const builds = (values.builds ?? path.resolve(kit.root, process.env.BENCH_DIST || 'dist/cjs')).split(',').map((build) => path.resolve(build));
    const [fewer, more] = (values.calls ?? (smoke ? '200,400' : '10000,18000')).split(',').map(Number);
    const copies = Number(values.copies ?? (smoke ? 1 : 3));
    if (!(Number.isInteger(fewer) && Number.isInteger(more) && fewer > 0 && more > fewer)) throw new Error('--calls wants two call counts, the smaller first (e.g. 10000,18000)');
    if (!(Number.isInteger(copies) && copies >= 1 && copies <= 9)) throw new Error('--copies wants a whole number from 1 to 9');
    for (const build of builds) if (!fs.existsSync(path.join(build, 'index.js'))) throw new Error(`${build} is not a CommonJS build of mcp-express (no index.js); build one with npm run build (dist/cjs)`);
    const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-instructions-'));
    // Copies beside the project's node_modules, so that their imports (zod, node-redis) resolve as the build's do;
    // under the same names in every run, since the names move the counts. One copy is the build where it lies.
    const copiesDir = copies > 1 ? path.join(kit.root, 'node_modules', '.mcp-express-instructions') : undefined;
    if (copiesDir) {
      fs.rmSync(copiesDir, { recursive: true, force: true });
      fs.mkdirSync(copiesDir, { recursive: true });
    }
    try {
      const located = builds.map((build, b) => ({ build, copies: copiesDir ? copyBuild(build, b, copies, copiesDir) : [build] }));
      const extra = callsMade(more) - callsMade(fewer);
      console.log(`${version}; instructions per call = (count of ${callsMade(more)} calls - count of ${callsMade(fewer)}) / ${extra}; ${copies} ${copies === 1 ? 'copy' : 'copies'} of each build`);
      for (const target of targets) {
        const perBuild = located.map((entry) => ({ ...entry, perCall: [] }));
        for (let copy = 0; copy < copies; copy++) {
          for (const entry of perBuild) {
            const dir = entry.copies[copy];
            const perCall = (count(target, dir, more, resultsDir) - count(target, dir, fewer, resultsDir)) / extra;
            if (!(perCall > 0)) throw new Error(`${target}: ${perCall} instructions per call; the two counts did not grow with the calls`);
            entry.perCall.push(Math.round(perCall));
          }
        }
        for (const entry of perBuild) {
          const name = builds.length > 1 ? `${target} (${path.relative(kit.root, entry.build) || entry.build})` : target;
          const sorted = [...entry.perCall].sort((a, b) => a - b);
          const median = sorted[Math.floor((sorted.length - 1) / 2)].toLocaleString('en-US');
          const each = copies > 1 ? ` (median; least ${sorted[0].toLocaleString('en-US')}; copies: ${entry.perCall.map((n) => n.toLocaleString('en-US')).join(', ')})` : '';
          console.log(`${name.padEnd(builds.length > 1 ? 60 : 28)} ${median.padStart(9)} instructions per call${each}`);
        }
      }
    } finally {
      fs.rmSync(resultsDir, { recursive: true, force: true });
      if (copiesDir) fs.rmSync(copiesDir, { recursive: true, force: true });
    }
  },
  3600,
);
