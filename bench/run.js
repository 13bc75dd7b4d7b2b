#!/usr/bin/env node
// Throughput of a tools/call through mcp-express (in Express and on plain node:http, with and without stores),
// the official SDK, bare Express and the raw node:http floor, side by side.
//
//   npm run build && node bench/run.js
//   node bench/run.js --duration 5 --warmup 2 --rounds 2 --connections 10 --targets mcp-express,node-mcp-session
//   node bench/run.js --profile node-mcp-session   # CPU profile of one target (see bench/README.md)
//   node bench/run.js --native-profile node-mcp-2026   # perf profile: kernel and native code too (Linux, perf)
//   node bench/run.js --gc-profile node-mcp-session    # bytes promoted per request, sites V8 pretenures (gdb names them)
//   node bench/run.js --smoke                      # every target briefly, every response parsed and checked
//
// Every target runs in its own child process (bench/server.js) on 127.0.0.1:<free port>; this process drives
// it with autocannon. Runs are interleaved (A B C D, A B C D, ...) and each target is reported as a ratio to its
// baseline (targets.js), because the machines are shared and noisy. Any non-2xx, socket error, timeout or wrong
// body fails the run.
'use strict';

const { fork, execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const autocannon = require('autocannon');
const { TARGETS, BASELINE, withBaselines, PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION } = require('./targets.js');
const { connectRedis, redisCpuMicros, REDIS_URL } = require('./redis-helper.js');
const { summarizeProfile, printProfileSummary } = require('./profile-summary.js');
const { summarizeNative, perfWorks, perfMapFile } = require('./native-summary.js');
const { gdbWorks, nameSites } = require('./allocation-sites.js');
const { machine } = require('./scenario-kit.js');

const root = path.join(__dirname, '..');
const resultsDir = path.join(__dirname, 'results');

// ---------------------------------------------------------------------------------------------- options

function readOptions() {
  const env = process.env;
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      pipelining: { type: 'string' },
      targets: { type: 'string' },
      'max-seconds': { type: 'string' },
      out: { type: 'string' },
      profile: { type: 'string' },
      'profile-interval': { type: 'string' },
      'native-profile': { type: 'string' },
      'gc-profile': { type: 'string' },
      'alt-dist': { type: 'string' },
      'skip-redis': { type: 'boolean' },
      smoke: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      [
        'usage: node bench/run.js [options]      (each option also reads an env var)',
        '  --duration <s>        measured seconds per run                BENCH_DURATION     (5)',
        '  --warmup <s>          unmeasured seconds before each run      BENCH_WARMUP       (2)',
        '  --rounds <n>          interleaved rounds                      BENCH_ROUNDS       (2)',
        '  --connections <n>     autocannon connections                  BENCH_CONNECTIONS  (10)',
        '  --pipelining <n>      autocannon pipelining                   BENCH_PIPELINING   (1)',
        `  --targets <a,b>       subset of: ${TARGETS.map((t) => t.name).join(', ')}   BENCH_TARGETS`,
        '  --max-seconds <s>     hard limit for the whole run            BENCH_MAX_SECONDS  (derived)',
        '  --out <file>          JSON results                            BENCH_OUT          (bench/results/latest.json)',
        '  --profile <target>    CPU-profile one target instead (--cpu-prof in its process)  BENCH_PROFILE',
        '  --profile-interval <us>  sampling interval of --profile       BENCH_PROFILE_INTERVAL (100)',
        '  --native-profile <target>  perf-profile one target instead: kernel, V8 and Node native code and the',
        '                        JavaScript (--perf-basic-prof), by area; needs perf (Linux)  BENCH_NATIVE_PROFILE',
        '  --gc-profile <target>  one target under GC tracing instead: bytes promoted per request, scavenges,',
        '                        full collections, and the allocation sites V8 pretenures (named with gdb)  BENCH_GC_PROFILE',
        '  --alt-dist <dir>      another CommonJS build of mcp-express (e.g. a patched copy): adds the',
        '                        targets mcp-express-alt and mcp-express-json-alt      BENCH_ALT_DIST',
        '  --skip-redis          leave out the Redis-backed targets      BENCH_SKIP_REDIS=1',
        `                        (else they need the Redis at ${REDIS_URL}, REDIS_URL)`,
        '  --smoke               correctness only: every target 1 s, 1 round, 4 connections, every response',
        '                        parsed as JSON-RPC and checked; results to a temp file   BENCH_SMOKE=1',
      ].join('\n'),
    );
    process.exit(0);
  }
  const num = (flag, name, fallback, min) => {
    const raw = values[flag] ?? env[name];
    const value = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${flag} (${name}) must be a number >= ${min}, got ${raw}`);
    return value;
  };
  const smoke = Boolean(values.smoke) || env.BENCH_SMOKE === '1';
  const options = {
    smoke,
    skipRedis: Boolean(values['skip-redis']) || env.BENCH_SKIP_REDIS === '1',
    duration: num('duration', 'BENCH_DURATION', 5, 1),
    warmup: num('warmup', 'BENCH_WARMUP', 2, 0),
    rounds: Math.floor(num('rounds', 'BENCH_ROUNDS', 2, 1)),
    connections: Math.floor(num('connections', 'BENCH_CONNECTIONS', 10, 1)),
    pipelining: Math.floor(num('pipelining', 'BENCH_PIPELINING', 1, 1)),
    out: path.resolve(values.out ?? env.BENCH_OUT ?? (smoke ? path.join(process.env.BENCH_SMOKE_DIR || os.tmpdir(), `mcp-express-bench-smoke-${process.pid}.json`) : path.join(resultsDir, 'throughput.json'))),
    profile: values.profile ?? env.BENCH_PROFILE,
    profileInterval: Math.floor(num('profile-interval', 'BENCH_PROFILE_INTERVAL', 100, 10)),
    nativeProfile: values['native-profile'] ?? env.BENCH_NATIVE_PROFILE,
    gcProfile: values['gc-profile'] ?? env.BENCH_GC_PROFILE,
    altDist: values['alt-dist'] ?? env.BENCH_ALT_DIST,
  };
  if (options.altDist) {
    options.altDist = path.resolve(options.altDist);
    if (!fs.existsSync(path.join(options.altDist, 'index.js'))) throw new Error(`--alt-dist ${options.altDist} has no index.js (give a dist/cjs directory)`);
  }
  const wanted = (values.targets ?? env.BENCH_TARGETS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if ([options.profile, options.nativeProfile, options.gcProfile].filter(Boolean).length > 1) throw new Error('--profile, --native-profile and --gc-profile: one at a time');
  options.profile ??= options.nativeProfile ?? options.gcProfile;
  for (const name of [...wanted, ...(options.profile ? [options.profile] : [])]) {
    const target = TARGETS.find((t) => t.name === name);
    if (!target) throw new Error(`unknown target "${name}"; targets: ${TARGETS.map((t) => t.name).join(', ')}`);
    if (target.alt && !options.altDist) throw new Error(`target ${name} needs --alt-dist <dir> (or BENCH_ALT_DIST)`);
  }
  if (smoke) Object.assign(options, { duration: 1, warmup: 0, rounds: 1, connections: Math.min(options.connections, 4) });
  if (options.profile) {
    options.targets = TARGETS.filter((t) => t.name === options.profile);
    options.rounds = 1;
  } else {
    // Ratios need each target's baseline (express-bare, node-floor, node-mcp-session...), added when not named.
    options.targets = wanted.length ? withBaselines(wanted) : TARGETS.filter((t) => !t.alt || options.altDist);
    if (options.skipRedis) options.targets = options.targets.filter((t) => !t.redis);
  }
  const perRun = options.warmup + options.duration + 5;
  // --gc-profile names the sites it finds with gdb afterwards (three attaches, each up to a minute).
  const derived = options.targets.length * (options.rounds * perRun + 10) + 30 + (options.gcProfile ? 180 : 0);
  options.maxSeconds = num('max-seconds', 'BENCH_MAX_SECONDS', Math.ceil(derived), 10);
  return options;
}

// ---------------------------------------------------------------------------------------------- build

function ensureBuilt() {
  if (process.env.BENCH_DIST) {
    if (!fs.existsSync(path.join(process.env.BENCH_DIST, 'index.js'))) throw new Error(`BENCH_DIST=${process.env.BENCH_DIST} has no index.js (give a dist/cjs directory)`);
    return;
  }
  const entry = path.join(root, 'dist/cjs/index.js');
  if (!fs.existsSync(entry)) {
    console.log('dist/cjs is missing: running node scripts/build.js');
    execFileSync(process.execPath, [path.join(root, 'scripts/build.js')], { cwd: root, stdio: 'inherit' });
    return;
  }
  const built = fs.statSync(entry).mtimeMs;
  const newer = newestFile(path.join(root, 'lib'));
  if (newer && newer.mtimeMs > built) {
    console.warn(`warning: ${path.relative(root, newer.file)} is newer than dist/cjs; run \`npm run build\` to bench the current sources.`);
  }
}

function newestFile(dir) {
  let newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const candidate = entry.isDirectory() ? newestFile(file) : { file, mtimeMs: fs.statSync(file).mtimeMs };
    if (candidate && (!newest || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}

// ---------------------------------------------------------------------------------------------- children

const children = new Set();

/**
 * Starts a target's server. `onStdout` (text chunks) reads its standard output from the start: a pipe nobody
 * reads fills at 64 KB, and a process writing to a full pipe on Linux blocks (V8's GC tracing filled it during
 * the warm-up).
 */
function startServer(target, options, execArgv = [], { onStdout } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'server.js'), [target.name], {
      cwd: root,
      execArgv,
      stdio: ['ignore', onStdout ? 'pipe' : 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production', BENCH_ALT_DIST: options.altDist ?? '' },
    });
    if (onStdout) child.stdout.setEncoding('utf8').on('data', onStdout);
    children.add(child);
    const timer = setTimeout(() => fail(new Error(`${target.name}: the server did not start within 20 s`)), 20_000);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('exit', (code, signal) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${target.name}: the server exited (code ${code}, signal ${signal})`));
    });
    child.on('message', (message) => {
      if (message && message.type === 'usage') child.emit('usage', message);
      if (message && message.type === 'ready') {
        clearTimeout(timer);
        resolve({ child, port: message.port, url: `http://127.0.0.1:${message.port}/mcp` });
      }
    });
  });
}

/** Asks the child to exit cleanly (so --cpu-prof writes its file); kills it after 5 s. */
function stopServer(server) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
    if (child.connected) child.send({ type: 'stop' });
    else child.kill('SIGTERM');
  });
}

let usageSeq = 0;

/** The server process's CPU time (µs, user + system) and heap, asked over IPC. */
async function usage(server) {
  const redisCpu = server.redis ? await redisCpuMicros(server.redis) : undefined;
  const process = await serverUsage(server);
  return { ...process, redisCpu };
}

function serverUsage(server) {
  const seq = ++usageSeq;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not report its CPU usage')), 5000);
    const onUsage = (message) => {
      if (message.seq !== seq) return;
      clearTimeout(timer);
      server.child.off('usage', onUsage);
      resolve({ cpu: message.cpu.user + message.cpu.system, heapUsed: message.heapUsed });
    };
    server.child.on('usage', onUsage);
    server.child.send({ type: 'usage', seq });
  });
}

function killAll() {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

// ---------------------------------------------------------------------------------------------- MCP client bits

const callBody = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sum","arguments":{"a":2,"b":3}}}`;

/** The same call on the 2026-07-28 wire: stateless, with the per-request `_meta` envelope. */
const modernCallBody = (id) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sum","arguments":{"a":2,"b":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN_PROTOCOL_VERSION}","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}}}`;

/** The call of the tool that sends one progress notification (with a progress token) before its result. */
const progressCallBody = (id) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sum_progress","arguments":{"a":2,"b":3},"_meta":{"progressToken":${id}}}}`;

const bodyFor = (target) => (target.modern ? modernCallBody : target.progress ? progressCallBody : callBody);

/** The body is the tool's result "5", not an error (in JSON or in an SSE `data:` line); cheap, for the load runs. */
function isSumResult(body) {
  return body.includes('"text":"5"') && !body.includes('"error"') && !body.includes('"isError":true');
}

/**
 * The strict check of --smoke: the body (JSON, or SSE whatever its content type says) parses, holds exactly one
 * JSON-RPC response, which is a `result` with the text "5" and a numeric id; with `progress`, a
 * notifications/progress for that id comes before it. Returns undefined when correct, else what is wrong.
 */
function checkResponse(target, body) {
  let messages;
  try {
    messages = body.trimStart().startsWith('{') ? [JSON.parse(body)] : messagesOf('text/event-stream', body);
  } catch (error) {
    return `the body does not parse (${error.message})`;
  }
  const responses = messages.filter((m) => m && typeof m === 'object' && ('result' in m || 'error' in m));
  if (responses.length !== 1) return `${responses.length} JSON-RPC responses in the body`;
  const [response] = responses;
  if (response.jsonrpc !== '2.0') return 'the response has no "jsonrpc": "2.0"';
  if (typeof response.id !== 'number') return `the response id is ${JSON.stringify(response.id)}, not the request's number`;
  if (response.error) return `an error response: ${JSON.stringify(response.error)}`;
  if (response.result?.isError || response.result?.content?.[0]?.text !== '5') return `the result is not the sum "5": ${JSON.stringify(response.result)}`;
  if (target.progress) {
    const progress = messages.find((m) => m.method === 'notifications/progress');
    if (!progress || progress.params?.progressToken !== response.id) return 'no notifications/progress with the request\'s token before the result';
    if (messages.indexOf(progress) > messages.indexOf(response)) return 'the progress notification came after the result';
  }
  return undefined;
}

/** The JSON-RPC messages of a response body, whether it is JSON or an SSE stream. */
function messagesOf(contentType, body) {
  if ((contentType || '').startsWith('text/event-stream')) {
    return body
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter(Boolean)
      .map((data) => JSON.parse(data));
  }
  return body ? [JSON.parse(body)] : [];
}

async function post(url, headers, body) {
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

/**
 * Opens one MCP session the way a client does (initialize, then notifications/initialized) and returns the
 * headers every tools/call will carry. The bare target gets the same headers minus the session id.
 */
async function prepareClient(target, url) {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
  };
  if (target.modern) {
    // 2026-07-28: no initialize and no session; every request names its version, method and tool in headers.
    return { ...headers, 'MCP-Protocol-Version': MODERN_PROTOCOL_VERSION, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sum' };
  }
  if (!target.mcp) return headers;
  const init = await post(url, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
  }));
  if (init.status !== 200) throw new Error(`${target.name}: initialize answered ${init.status}: ${init.text.slice(0, 300)}`);
  const initResult = messagesOf(init.headers.get('content-type'), init.text).find((m) => m.id === 0);
  if (!initResult?.result?.protocolVersion) throw new Error(`${target.name}: initialize gave no result: ${init.text.slice(0, 300)}`);
  const sessionId = init.headers.get('mcp-session-id');
  if (sessionId) headers['Mcp-Session-Id'] = sessionId;
  const initialized = await post(url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  if (initialized.status !== 202) throw new Error(`${target.name}: notifications/initialized answered ${initialized.status}: ${initialized.text.slice(0, 300)}`);
  return headers;
}

/** One tools/call by hand before any load: never benchmark an error path. */
async function verifyTarget(target, url, headers) {
  const call = await post(url, headers, bodyFor(target)(1));
  const contentType = call.headers.get('content-type') || '';
  const wrong = target.mcp ? checkResponse(target, call.text) : undefined;
  if (wrong) throw new Error(`${target.name}: tools/call answered wrong: ${wrong}: ${call.text.slice(0, 400)}`);
  if (call.status < 200 || call.status > 299 || !isSumResult(call.text)) {
    throw new Error(`${target.name}: tools/call did not answer the sum "5" (status ${call.status}, ${contentType}): ${call.text.slice(0, 400)}`);
  }
  const response = messagesOf(contentType, call.text).find((m) => m.id === 1 || target.name === BASELINE);
  if (response?.result?.content?.[0]?.text !== '5') throw new Error(`${target.name}: no JSON-RPC result "5" in: ${call.text.slice(0, 400)}`);
  return { status: call.status, contentType: contentType.split(';')[0], bytes: Buffer.byteLength(call.text) };
}

// ---------------------------------------------------------------------------------------------- load

let nextId = 1000;
/** JSON-RPC ids each connection cycles through: a connection has one request in flight (pipelining 1), so none collide. */
const IDS_PER_CONNECTION = 64;

/** One autocannon run; latencies are kept at full resolution (autocannon's histogram has 1 ms steps). */
async function load(server, headers, options, seconds) {
  const { url, target } = server;
  const callBody = server.body ?? bodyFor({});
  const latencies = [];
  let badBody;
  const request = { method: 'POST', path: new URL(url).pathname, headers };
  // Concurrent calls in a session need distinct JSON-RPC ids (servers track requests by id). With pipelining 1
  // each connection gets its own prebuilt requests (cheap for the client); otherwise every request is rebuilt.
  const prebuilt = options.pipelining === 1;
  const before = await usage(server);
  const clientBefore = process.cpuUsage();
  const instance = autocannon({
    url,
    connections: options.connections,
    pipelining: options.pipelining,
    duration: seconds,
    timeout: 10,
    requests: prebuilt ? [{ ...request, body: callBody(0) }] : [{ ...request, setupRequest: (r) => ({ ...r, body: callBody(nextId++) }) }],
    setupClient: prebuilt
      ? (client) => {
          const first = nextId;
          nextId += IDS_PER_CONNECTION;
          client.setRequests(Array.from({ length: IDS_PER_CONNECTION }, (_, i) => ({ ...request, body: callBody(first + i) })));
        }
      : undefined,
    verifyBody: (body) => {
      // --smoke parses every body; measured runs use the cheap check (the load generator shares the CPUs).
      const wrong = options.smoke ? checkResponse(target, body) : isSumResult(body) ? undefined : 'not the sum';
      if (wrong === undefined && (!target.progress || options.smoke || body.includes('notifications/progress'))) return true;
      badBody ??= `${wrong ?? 'no progress notification'}: ${body}`;
      return false;
    },
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await instance;
  const client = process.cpuUsage(clientBefore);
  const after = await usage(server);
  latencies.sort((a, b) => a - b);
  const total = result.requests.total;
  return {
    reqPerSec: total / result.duration,
    total,
    duration: result.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    /** Server CPU (user + system) per completed request: steadier than req/s when the machine is shared. */
    cpuUsPerReq: (after.cpu - before.cpu) / Math.max(1, total),
    /** Server CPU seconds per wall second: ~1 means the server process was the bottleneck. */
    serverCpuLoad: (after.cpu - before.cpu) / 1e6 / result.duration,
    heapUsedMiB: after.heapUsed / 2 ** 20,
    /** The load generator's CPU seconds per wall second: near 1 means autocannon, not the server, set the pace. */
    clientCpuLoad: (client.user + client.system) / 1e6 / result.duration,
    /** Redis's CPU per request (Redis-backed targets; the Redis is shared, so other clients' work counts too). */
    redisCpuUsPerReq: before.redisCpu === undefined ? undefined : (after.redisCpu - before.redisCpu) / Math.max(1, total),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    statusCodeStats: result.statusCodeStats,
    badBody: badBody?.slice(0, 400),
  };
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function failures(run) {
  return run.non2xx + run.errors + run.mismatches;
}

function assertClean(name, phase, run) {
  if (failures(run) === 0) return;
  const detail = [
    `non-2xx ${run.non2xx}`,
    `errors ${run.errors} (timeouts ${run.timeouts})`,
    `wrong bodies ${run.mismatches}`,
    `status codes ${JSON.stringify(run.statusCodeStats)}`,
    run.badBody ? `first wrong body: ${run.badBody}` : '',
  ].filter(Boolean);
  throw new Error(`${name} (${phase}): failed checks: ${detail.join('; ')}`);
}

// ---------------------------------------------------------------------------------------------- report

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function printTable(summary) {
  const rows = [['target', 'baseline', 'req/s (median)', 'p50 ms', 'p99 ms', 'ratio to baseline', 'same-round ratios', 'CPU µs/req', 'CPU ratio', 'answer']];
  for (const s of summary) {
    const self = s.target === s.baseline;
    const range = s.roundRatios.length > 1 ? `${fmt(Math.min(...s.roundRatios), 2)}-${fmt(Math.max(...s.roundRatios), 2)}` : fmt(s.roundRatios[0], 2);
    rows.push([
      s.target,
      self ? '' : s.baseline,
      fmt(s.reqPerSec),
      fmt(s.p50, 2),
      fmt(s.p99, 2),
      self ? '1.00' : `${fmt(s.ratio, 2)} (${fmt(s.ratio * 100, 0)} %)`,
      self ? '' : `${fmt(s.pairedRatio, 2)} (${range})`,
      fmt(s.cpuUsPerReq, 1) + (Number.isFinite(s.redisCpuUsPerReq) ? ` +${fmt(s.redisCpuUsPerReq, 1)} redis` : ''),
      self ? '1.00' : fmt(s.cpuRatio, 2),
      s.contentType,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => ([0, 1, 6, 9].includes(i) ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log('');
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row));
  console.log('');
}

/** The commit checked out (the build measured may hold uncommitted changes of the working tree; see settings.dist). */
function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function versions() {
  const version = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  };
  return {
    'mcp-express': require(path.join(root, 'package.json')).version,
    express: version('express'),
    '@modelcontextprotocol/sdk': version('@modelcontextprotocol/sdk'),
    zod: version('zod'),
    autocannon: version('autocannon'),
  };
}

// ---------------------------------------------------------------------------------------------- main

/** One Redis client for the parent when a target needs Redis (its CPU is sampled around each run). */
async function redisForTargets(options) {
  if (!options.targets.some((t) => t.redis)) return undefined;
  const client = await connectRedis();
  if (!(client instanceof Error)) return client;
  if (options.smoke && process.env.REQUIRE_REDIS !== '1') {
    console.warn(`bench smoke: ${client.message}; the Redis targets are skipped (REQUIRE_REDIS=1 makes this a failure)`);
    options.targets = options.targets.filter((t) => !t.redis);
    return undefined;
  }
  throw new Error(`${client.message}; or leave the Redis targets out with --skip-redis`);
}

async function bench(options) {
  const started = Date.now();
  const redis = await redisForTargets(options);
  const servers = new Map();
  try {
    for (const target of options.targets) {
      const server = await startServer(target, options);
      const headers = await prepareClient(target, server.url);
      const check = await verifyTarget(target, server.url, headers);
      servers.set(target.name, { ...server, target, headers, check, body: bodyFor(target), redis: target.redis ? redis : undefined });
      console.log(`${target.name.padEnd(32)} ready on :${server.port}, tools/call answers ${check.status} ${check.contentType} (${check.bytes} bytes)`);
    }
    console.log(
      `\n${options.rounds} round(s) x ${options.targets.length} targets: ${options.warmup} s warm-up + ${options.duration} s measured each, ` +
        `${options.connections} connections, pipelining ${options.pipelining}${options.smoke ? ' (smoke: every response parsed and checked)' : ''}`,
    );

    const runs = [];
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of options.targets) {
        const server = servers.get(target.name);
        if (options.warmup > 0) assertClean(target.name, `round ${round} warm-up`, await load(server, server.headers, options, options.warmup));
        const run = await load(server, server.headers, options, options.duration);
        assertClean(target.name, `round ${round}`, run);
        runs.push({ round, target: target.name, ...run });
        console.log(
          `  round ${round}  ${target.name.padEnd(32)} ${fmt(run.reqPerSec).padStart(7)} req/s  p50 ${fmt(run.p50, 2)} ms  p99 ${fmt(run.p99, 2)} ms  ` +
            `server CPU ${fmt(run.cpuUsPerReq, 1)} µs/req${run.redisCpuUsPerReq === undefined ? '' : ` (+ Redis ${fmt(run.redisCpuUsPerReq, 1)})`}, ` +
            `CPU load server ${fmt(run.serverCpuLoad, 2)} client ${fmt(run.clientCpuLoad, 2)}`,
        );
      }
    }
    await Promise.all([...servers.values()].map(stopServer));

    const summary = options.targets.map((target) => {
      const mine = runs.filter((r) => r.target === target.name);
      const base = runs.filter((r) => r.target === target.baseline);
      const baseByRound = new Map(base.map((r) => [r.round, r.reqPerSec]));
      const reqPerSec = median(mine.map((r) => r.reqPerSec));
      const cpuUsPerReq = median(mine.map((r) => r.cpuUsPerReq));
      return {
        target: target.name,
        baseline: target.baseline,
        mount: target.mount,
        description: target.description,
        contentType: servers.get(target.name).check.contentType,
        reqPerSec,
        p50: median(mine.map((r) => r.p50)),
        p99: median(mine.map((r) => r.p99)),
        ratio: reqPerSec / median(base.map((r) => r.reqPerSec)),
        cpuUsPerReq,
        /** The baseline's CPU per request over this target's: the throughput ratio if the server alone were the limit. */
        cpuRatio: median(base.map((r) => r.cpuUsPerReq)) / cpuUsPerReq,
        redisCpuUsPerReq: target.redis ? median(mine.map((r) => r.redisCpuUsPerReq)) : undefined,
        serverCpuLoad: median(mine.map((r) => r.serverCpuLoad)),
        /** Each round's req/s over the baseline's in the same round: how stable the ratio is. */
        roundRatios: mine.map((r) => r.reqPerSec / baseByRound.get(r.round)),
        pairedRatio: median(mine.map((r) => r.reqPerSec / baseByRound.get(r.round))),
        rounds: mine.map((r) => r.reqPerSec),
        requests: mine.reduce((n, r) => n + r.total, 0),
      };
    });
    printTable(summary);

    const report = {
      scenario: 'throughput',
      date: new Date().toISOString(),
      machine: machine(),
      versions: versions(),
      settings: {
        duration: options.duration,
        warmup: options.warmup,
        rounds: options.rounds,
        connections: options.connections,
        pipelining: options.pipelining,
        protocolVersion: PROTOCOL_VERSION,
        smoke: options.smoke,
        /** The build measured: dist/cjs, or BENCH_DIST (e.g. a build of a given commit). */
        dist: process.env.BENCH_DIST || 'dist/cjs',
        commit: process.env.BENCH_COMMIT || gitHead(),
        altDist: options.altDist,
      },
      baseline: BASELINE,
      summary,
      runs: runs.map(({ badBody, statusCodeStats, ...run }) => run),
      elapsedSeconds: Math.round((Date.now() - started) / 100) / 10,
    };
    fs.mkdirSync(path.dirname(options.out), { recursive: true });
    fs.writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results: ${path.relative(process.cwd(), options.out)}`);
    if (options.smoke) console.log(`bench smoke: ${options.targets.length} targets, ${summary.reduce((n, s) => n + s.requests, 0)} responses, every one checked: OK`);
  } finally {
    await redis?.close();
  }
}

/** Where a profile file of `target` goes: bench/results/profiles/<target>-<time>.<extension> (not committed). */
function profileFile(target, extension) {
  const dir = path.join(resultsDir, 'profiles');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${target.name}-${new Date().toISOString().replace(/[:.]/g, '-')}.${extension}`);
}

/** What every profile's summary file starts with: the scenario, the target, when and on what machine. */
function briefHead(scenario, target) {
  return { scenario, target: target.name, date: new Date().toISOString(), machine: machine() };
}

/** Writes a profile's summary as <dir>/<scenario>-<target>.json (what scripts/bench-chart.js reads) and says where. */
function writeBrief(brief, dir = resultsDir) {
  const file = path.join(dir, `${brief.scenario}-${brief.target}.json`);
  fs.writeFileSync(file, `${JSON.stringify(brief, null, 2)}\n`);
  console.log(`\nsummary: ${path.relative(process.cwd(), file)}`);
}

/** The directories holding the mcp-express builds measured: their functions are "ours" in a profile. */
function ownDirs(options) {
  return [path.join(root, 'dist'), ...[process.env.BENCH_DIST, options.altDist].filter(Boolean).map((dir) => path.resolve(dir))];
}

/**
 * One profiled run of `options.targets[0]`: its server started with `execArgv` (and `serverOptions`, see
 * startServer), a client prepared and checked, the warm-up, then the measured run (`around` wraps it, given the
 * server's child process while it still runs), and the server stopped. Returns the measured run, the requests of
 * the warm-up and the server's pid.
 */
async function profiledRun(options, execArgv, around = (_child, measure) => measure(), serverOptions = {}) {
  const target = options.targets[0];
  const server = { ...(await startServer(target, options, execArgv, serverOptions)), target, body: bodyFor(target) };
  const pid = server.child.pid;
  const headers = await prepareClient(target, server.url);
  await verifyTarget(target, server.url, headers);
  if (target.redis) server.redis = await redisForTargets(options);
  let warmupRequests = 0;
  if (options.warmup > 0) {
    const warm = await load(server, headers, options, options.warmup);
    assertClean(target.name, 'warm-up', warm);
    warmupRequests = warm.total;
  }
  const run = await around(server.child, () => load(server, headers, options, options.duration));
  assertClean(target.name, 'profiled run', run);
  await stopServer(server);
  await server.redis?.close();
  return { run, warmupRequests, pid };
}

async function profile(options) {
  const target = options.targets[0];
  const file = profileFile(target, 'cpuprofile');
  const execArgv = ['--cpu-prof', `--cpu-prof-dir=${path.dirname(file)}`, `--cpu-prof-name=${path.basename(file)}`, `--cpu-prof-interval=${options.profileInterval}`];
  const { run, warmupRequests } = await profiledRun(options, execArgv);
  console.log(`${target.name} under --cpu-prof: ${fmt(run.reqPerSec)} req/s (slowed by the profiler; not comparable)`);
  console.log(`profile: ${path.relative(process.cwd(), file)} (open it in Chrome DevTools > Performance, or speedscope)\n`);
  const summary = summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), root, ownDirs(options));
  printProfileSummary(summary);
  // A short summary beside the results, for docs/benchmarks.md (scripts/bench-chart.js): the profile itself is large.
  const brief = {
    ...briefHead('profile', target),
    reqPerSecUnderProfiler: run.reqPerSec,
    cpuUsPerReq: run.cpuUsPerReq,
    /** Requests served while profiled (warm-up and measured run); busy time over it is the profiled µs per request (start-up included). */
    requests: warmupRequests + run.total + 1,
    busyMs: summary.busyMs,
    areas: summary.areas.slice(0, 12),
    bySelf: summary.bySelf.slice(0, 20),
    ownByTotal: summary.byTotal.slice(0, 20),
  };
  writeBrief(brief);
}

/**
 * `perf record` of one target's server during a measured run (after the warm-up), summarised by where the CPU
 * went: the kernel, V8's and Node's native code (builtins, runtime, GC, JSON, the HTTP parser) and the JavaScript
 * (--perf-basic-prof names it). Writes bench/results/native-profile-<target>.json.
 */
async function nativeProfile(options) {
  const target = options.targets[0];
  if (!perfWorks()) throw new Error('--native-profile needs perf (linux-perf) and permission to sample processes (root, or kernel.perf_event_paranoid <= 1)');
  const file = profileFile(target, 'perf.data');
  const { run, pid } = await profiledRun(options, ['--perf-basic-prof', '--logfile=/dev/null'], async (child, measure) => {
    const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '2000', '-p', String(child.pid), '-o', file], { stdio: 'ignore' });
    const perfDone = new Promise((resolve) => perf.once('exit', resolve));
    try {
      return await measure();
    } finally {
      perf.kill('SIGINT');
      await perfDone;
    }
  });
  let summary;
  try {
    summary = summarizeNative(file, ownDirs(options));
  } finally {
    fs.rmSync(perfMapFile(pid), { force: true }); // large, read above
    fs.rmSync(file, { force: true });
  }
  console.log(`${target.name} under perf: ${fmt(run.reqPerSec)} req/s, ${summary.samples} samples (slowed by the profiler; not comparable)`);
  for (const { area, share } of summary.areas) {
    console.log(`  ${(share * 100).toFixed(1).padStart(5)} %  ${(share * run.cpuUsPerReq).toFixed(1).padStart(5)} µs  ${area}`);
  }
  const brief = {
    ...briefHead('native-profile', target),
    reqPerSecUnderProfiler: run.reqPerSec,
    /** The server's CPU per request of the measured run, under perf: an area's share times it is its µs per request (under perf). */
    cpuUsPerReqUnderProfiler: run.cpuUsPerReq,
    ...summary,
  };
  writeBrief(brief);
}

/**
 * What V8 keeps of each request past a scavenge, for one target: its server runs with `--trace-gc-nvp` and
 * `--trace-pretenuring-statistics`; over the measured run (after the warm-up) this counts the bytes allocated and
 * the bytes promoted to the old generation, the scavenges and the full collections per request, and names the allocation sites V8 decided to
 * pretenure by the end of it (bench/allocation-sites.js, with gdb where it is installed). A per-request object
 * allocated in the old generation keeps what it points to alive through every scavenge until the next full
 * collection, so one such site can promote a whole request (docs/benchmarks.md has the case that was found).
 * Writes bench/results/gc-profile-<target>.json.
 */
async function gcProfile(options) {
  const target = options.targets[0];
  let output = '';
  let partial = '';
  let counting = false;
  const measured = { allocatedBytes: 0, promotedBytes: 0, scavenges: 0, fullCollections: 0 };
  /** The last decision V8 printed for each site it considered ("tenure", "don't tenure", "maybe tenure"...). */
  const decisions = new Map();
  const readLine = (line) => {
    const site = /pretenuring: AllocationSite\((0x[0-9a-f]+)\): \(created, found, ratio\) .* => (.*)$/.exec(line);
    if (site) decisions.set(site[1], site[2].trim());
    if (!counting || !/ gc=/.test(line)) return;
    measured.allocatedBytes += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    measured.promotedBytes += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    if (/ gc=s /.test(line)) measured.scavenges++;
    else if (/ gc=(mc|mmc|ms) /.test(line)) measured.fullCollections++;
  };
  const execArgv = ['--trace-gc-nvp', '--trace-pretenuring-statistics', '--perf-basic-prof', '--logfile=/dev/null', '--no-compact'];
  let sites = [];
  const { run, pid } = await profiledRun(
    options,
    execArgv,
    async (child, measure) => {
      counting = true;
      const result = await measure();
      counting = false;
      const tenured = [...decisions].filter(([, decision]) => decision === 'tenure').map(([site]) => site);
      if (tenured.length && gdbWorks()) sites = await nameSites(child.pid, tenured, () => output, { root, own: ownDirs(options) });
      else sites = tenured.map((site) => ({ site, makes: 'not named (gdb is not installed)', functions: [] }));
      return result;
    },
    {
      onStdout: (chunk) => {
        output += chunk;
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        for (const line of lines) readLine(line);
      },
    },
  );
  fs.rmSync(perfMapFile(pid), { force: true });
  const perRequest = (n) => n / run.total;
  const brief = {
    ...briefHead('gc-profile', target),
    reqPerSec: run.reqPerSec,
    cpuUsPerReq: run.cpuUsPerReq,
    requests: run.total,
    /** Bytes V8 allocated between collections (each collection's `allocated=`), per request of the measured run. */
    allocatedBytesPerRequest: perRequest(measured.allocatedBytes),
    promotedBytesPerRequest: perRequest(measured.promotedBytes),
    scavenges: measured.scavenges,
    fullCollections: measured.fullCollections,
    tenuredSites: sites,
  };
  console.log(`${target.name} with GC tracing: ${fmt(run.reqPerSec)} req/s, ${brief.cpuUsPerReq.toFixed(1)} µs CPU per request (slowed by the tracing)`);
  console.log(`  allocated: ${brief.allocatedBytesPerRequest.toFixed(0)} bytes per request`);
  console.log(`  promoted to the old generation: ${brief.promotedBytesPerRequest.toFixed(0)} bytes per request; ${brief.scavenges} scavenges, ${brief.fullCollections} full collections in ${run.total} requests`);
  console.log(`  allocation sites V8 pretenures: ${sites.length === 0 ? 'none' : sites.length}`);
  for (const site of sites) {
    console.log(`    ${site.site}: ${site.makes}`);
    for (const fn of site.functions) console.log(`      used by optimised ${fn.function}${fn.inlined.length ? `, inlining ${fn.inlined.join(', ')}` : ''}`);
  }
  // The bench smoke (bench/all.js --smoke) runs it briefly: its summary goes to the smoke's temp directory.
  writeBrief(brief, process.env.BENCH_SMOKE_DIR || resultsDir);
}

async function main() {
  const options = readOptions();
  ensureBuilt();
  const watchdog = setTimeout(() => {
    console.error(`\nbench: still running after ${options.maxSeconds} s (--max-seconds); giving up.`);
    killAll();
    process.exit(1);
  }, options.maxSeconds * 1000);
  try {
    if (options.gcProfile) await gcProfile(options);
    else if (options.nativeProfile) await nativeProfile(options);
    else if (options.profile) await profile(options);
    else await bench(options);
  } finally {
    clearTimeout(watchdog);
    killAll();
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

main().catch((error) => {
  console.error(`\nbench FAILED: ${error.message}`);
  killAll();
  process.exit(1);
});
