'use strict';
// What the scenario scripts (bench/resume.js, bench/memory.js, bench/fanout.js) share: a bench server in a child
// process, IPC requests to it, small HTTP helpers, statistics and the results file.

const { fork } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { PROTOCOL_VERSION } = require('./targets.js');

const root = path.join(__dirname, '..');
const resultsDir = path.join(__dirname, 'results');
const children = new Set();

/** Forks `bench/server.js <name>` (with `execArgv` and extra `env`); resolves once it listens, with { child, port, url, request(type) }. */
function startServer(name, execArgv = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'server.js'), [name], {
      cwd: root,
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production', ...env },
    });
    children.add(child);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: the server did not start within 20 s`));
    }, 20_000);
    child.once('exit', (code, signal) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${name}: the server exited (code ${code}, signal ${signal})`));
    });
    let seq = 0;
    /** Sends { type, ...extra } over IPC and resolves with the answer of the same seq (`answer`: its type). */
    const request = (type, answer = type, extra = {}) =>
      new Promise((done, fail) => {
        const mine = ++seq;
        const timeout = setTimeout(() => fail(new Error(`${name}: no answer to "${type}" over IPC`)), 120_000);
        const onMessage = (message) => {
          if (!message || message.type !== answer || message.seq !== mine) return;
          clearTimeout(timeout);
          child.off('message', onMessage);
          done(message);
        };
        child.on('message', onMessage);
        child.send({ ...extra, type, seq: mine });
      });
    child.on('message', (message) => {
      if (message && message.type === 'ready') {
        clearTimeout(timer);
        resolve({ child, port: message.port, url: `http://127.0.0.1:${message.port}/mcp`, request });
      }
    });
  });
}

/** Asks the server to close (it deletes its Redis keys); kills it after 8 s. */
function stopServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
    child.send({ type: 'stop' });
  });
}

function killAll() {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

/** One HTTP request with node:http; resolves with { status, headers, text, ms } (ms: from send to the last byte). */
function request(url, { method = 'POST', headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${url}: no answer within 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** Opens a 2025-11-25 session (initialize + notifications/initialized); returns the headers its requests carry. */
async function openSession(url, agent) {
  const init = await request(url, {
    headers: JSON_HEADERS,
    agent,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } }),
  });
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || !sessionId || !init.text.includes('"protocolVersion"')) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 300)}`);
  const headers = { ...JSON_HEADERS, 'MCP-Protocol-Version': PROTOCOL_VERSION, 'Mcp-Session-Id': sessionId };
  const initialized = await request(url, { headers, agent, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}: ${initialized.text.slice(0, 300)}`);
  return { sessionId, headers };
}

/** The events of an SSE body: [{ id, data (parsed JSON or undefined) }]. */
function sseEvents(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let id;
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (id === undefined && data.length === 0) continue;
    const joined = data.join('\n');
    events.push({ id, data: joined ? JSON.parse(joined) : undefined });
  }
  return events;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    totalMemGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadavg: os.loadavg().map((l) => +l.toFixed(2)),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
  };
}

/** Writes `bench/results/<name>.json` (or `out`), unless this is a smoke run (then a temp file). */
function writeResult(name, report, { smoke, out } = {}) {
  const file = out ?? (smoke ? path.join(process.env.BENCH_SMOKE_DIR || os.tmpdir(), `mcp-express-bench-smoke-${name}-${process.pid}.json`) : path.join(resultsDir, `${name}.json`));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ scenario: name, date: new Date().toISOString(), machine: machine(), ...report }, null, 2)}\n`);
  console.log(`results: ${path.relative(process.cwd(), file)}`);
}

/** The soft limit on open files of this process (what `ulimit -n` says), from /proc; Infinity when unknown. */
function openFileLimit() {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === 'unlimited' || soft === undefined ? Infinity : Number(soft);
  } catch {
    return Infinity;
  }
}

/** Runs `main(smoke)` with a watchdog, kills the children on failure and exits 1 with the message. */
function runScenario(name, main, maxSeconds) {
  const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
  const watchdog = setTimeout(() => {
    console.error(`\n${name}: still running after ${maxSeconds} s; giving up.`);
    killAll();
    process.exit(1);
  }, maxSeconds * 1000);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
  main(smoke)
    .then(() => {
      clearTimeout(watchdog);
      killAll();
    })
    .catch((error) => {
      console.error(`\n${name} FAILED: ${error.message}`);
      killAll();
      process.exit(1);
    });
}

/** Directories holding the mcp-express build being measured (for profile summaries): dist, and BENCH_DIST when set. */
function ownDirs() {
  return [path.join(root, 'dist'), ...(process.env.BENCH_DIST ? [path.resolve(process.env.BENCH_DIST)] : [])];
}

module.exports = { ownDirs, startServer, stopServer, request, openSession, sseEvents, median, percentile, machine, writeResult, openFileLimit, runScenario, JSON_HEADERS, root };
