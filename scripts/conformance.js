#!/usr/bin/env node
// Runs the official MCP conformance suite against the "everything" example (dist/examples/everything/main.js).
//
//   npm run conformance                          # every era in DEFAULT_ERAS, then every scenario in EXTRA_SCENARIOS
//   npm run conformance -- 2025-11-25            # chosen eras (or CONFORMANCE_ERAS=2025-11-25,...)
//   npm run conformance -- sep-2640-skills-manifest   # chosen extra scenarios (names that are not dates)
//   npm run conformance -- 2025-11-25 -- --verbose   # anything after a second `--` goes to the suite
//
// Each era runs `conformance server --requirements <era>`: only the scenarios that revision scores decide the
// exit code, except that the unscored scenarios listed in ERA_EXTENSION_SCENARIOS (the tasks extension on
// 2026-07-28) must pass every check too. Each extra scenario runs `conformance server --scenario <name>` and passes only when its checks.json
// has no FAILURE and at least one SUCCESS (a run of skips proves nothing). Check details land in CONFORMANCE_OUT
// (default: a new temp directory), one folder per era or scenario.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const serverEntry = path.join(root, 'dist/examples/everything/main.js');

/** The suite version; 0.2.x is the first with `--requirements`. It needs Node 22, which npx fetches as a package. */
const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const SUITE_NODE = 'node@22';
/** Spec revisions run when none is named. Add an era here once the example serves it. */
const DEFAULT_ERAS = ['2025-11-25', '2026-07-28'];
/**
 * Scenarios outside the requirement sets (the suite's "pending" ones, such as extensions) that the example
 * implements: each is run on its own and must pass.
 */
const EXTRA_SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];
/**
 * Unscored scenarios of an era's run that the example implements, by name prefix: every check of each must pass
 * (the era's exit code only counts scored scenarios), and together they must show at least one passing check.
 */
const ERA_EXTENSION_SCENARIOS = { '2026-07-28': ['tasks-'] };
/** How long the example may take to answer its first request. */
const STARTUP_TIMEOUT_MS = 15_000;

async function main() {
  const { eras, scenarios, suiteArgs } = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(serverEntry)) {
    console.log(`${path.relative(root, serverEntry)} is missing: running npm run build`);
    execFileSync(npmCommand('npm'), ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  }
  const outDir = process.env.CONFORMANCE_OUT ? path.resolve(process.env.CONFORMANCE_OUT) : fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-conformance-'));
  fs.mkdirSync(outDir, { recursive: true });

  const port = await freePort();
  const server = startServer(port, path.join(outDir, 'server.log'));
  const stop = () => server.kill('SIGTERM');
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });

  const results = [];
  try {
    await waitUntilServing(port, server);
    // The suite's DNS-rebinding scenario wants a loopback host name in the URL; the example binds 127.0.0.1.
    const url = `http://localhost:${port}/mcp`;
    for (const era of eras) {
      console.log(`\n=== conformance ${era} against ${url} ===\n`);
      const eraDir = path.join(outDir, era);
      fs.rmSync(eraDir, { recursive: true, force: true }); // a reused CONFORMANCE_OUT must not mix in old runs
      const code = await runSuite(url, era, eraDir, suiteArgs);
      results.push({ label: era, code });
      for (const prefix of ERA_EXTENSION_SCENARIOS[era] ?? []) {
        const verdict = scenarioVerdict(eraDir, `server-${prefix}`);
        console.log(`${era} ${prefix}* scenarios: ${verdict ?? 'every check passed'}`);
        results.push({ label: `${era} ${prefix}* scenarios`, code: verdict ? 1 : 0 });
      }
    }
    for (const scenario of scenarios) {
      console.log(`\n=== conformance scenario ${scenario} against ${url} ===\n`);
      const scenarioDir = path.join(outDir, scenario);
      fs.rmSync(scenarioDir, { recursive: true, force: true }); // a reused CONFORMANCE_OUT must not mix in old runs
      const code = await runSuite(url, ['--scenario', scenario], scenarioDir, suiteArgs);
      const verdict = scenarioVerdict(scenarioDir);
      if (verdict) console.log(`${scenario}: ${verdict}`);
      results.push({ label: scenario, code: code === 0 && !verdict ? 0 : code || 1 });
    }
  } finally {
    stop();
    await new Promise((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve() : server.once('exit', resolve)));
  }

  console.log('');
  for (const { label, code } of results) console.log(`${code === 0 ? 'PASS' : 'FAIL'} ${label} (exit code ${code})`);
  console.log(`Check details: ${outDir}/<era or scenario>/server-<scenario>-<time>/checks.json; server output: ${path.join(outDir, 'server.log')}`);
  process.exitCode = results.every((result) => result.code === 0) ? 0 : 1;
}

/**
 * Eras (dates) and extra scenarios (other names) are positional arguments (or CONFORMANCE_ERAS, comma-separated);
 * naming none runs every default era and extra scenario. Everything after `--` goes to the suite.
 */
function parseArgs(argv) {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const suiteArgs = split < 0 ? [] : argv.slice(split + 1);
  const named = (own.length > 0 ? own : (process.env.CONFORMANCE_ERAS ?? '').split(',')).map((name) => name.trim()).filter(Boolean);
  const isEra = (name) => /^\d{4}-\d{2}-\d{2}$/.test(name);
  const eras = named.filter(isEra);
  const scenarios = named.filter((name) => !isEra(name));
  for (const scenario of scenarios) {
    if (!EXTRA_SCENARIOS.includes(scenario)) {
      throw new Error(`"${scenario}" is neither a spec revision (YYYY-MM-DD, e.g. ${DEFAULT_ERAS.join(', ')}) nor one of the extra scenarios: ${EXTRA_SCENARIOS.join(', ')}`);
    }
  }
  if (named.length === 0) return { eras: DEFAULT_ERAS, scenarios: EXTRA_SCENARIOS, suiteArgs };
  return { eras, scenarios, suiteArgs };
}

/**
 * Why the scenario runs in `dir` (those whose folder starts with `folderPrefix`, when given) did not pass (a
 * failed check, or nothing but skips), or undefined when they did.
 */
function scenarioVerdict(dir, folderPrefix = '') {
  const folders = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith(folderPrefix)) : [];
  const files = folders.map((name) => path.join(dir, name, 'checks.json')).filter((file) => fs.existsSync(file));
  if (files.length === 0) return 'no checks.json was written';
  const checks = files.flatMap((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  const failed = checks.filter((check) => check.status === 'FAILURE').map((check) => check.id);
  if (failed.length > 0) return `${failed.length} check(s) failed: ${failed.join(', ')}`;
  if (!checks.some((check) => check.status === 'SUCCESS')) return `no check passed (${checks.length} skipped or informational): is the extension declared?`;
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function startServer(port, logFile) {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [serverEntry], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  return child;
}

/** Resolves once the example answers any HTTP request on /mcp; rejects if it exits or stays silent. */
async function waitUntilServing(port, child) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`The example exited during start-up (code ${child.exitCode}); see server.log`);
    if (await answers(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The example did not answer on port ${port} within ${STARTUP_TIMEOUT_MS} ms`);
}

function answers(port) {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/mcp', timeout: 1000 }, (response) => {
      response.resume();
      resolve(true);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(false));
  });
}

/** `selection` is an era (run with `--requirements`) or the suite's own arguments, e.g. `['--scenario', name]`. */
function runSuite(url, selection, outDir, suiteArgs) {
  const select = Array.isArray(selection) ? selection : ['--requirements', selection];
  const args = ['-y', '-p', SUITE_NODE, '-p', SUITE, 'conformance', 'server', '--url', url, ...select, '-o', outDir, ...suiteArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(npmCommand('npx'), args, {
      cwd: os.tmpdir(), // outside the project, so npx never resolves the suite against our package.json
      stdio: 'inherit',
      env: { npm_config_loglevel: 'error', npm_config_update_notifier: 'false', ...process.env },
      shell: process.platform === 'win32',
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function npmCommand(name) {
  return process.platform === 'win32' ? `${name}.cmd` : name;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
