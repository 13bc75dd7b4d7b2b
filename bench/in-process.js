#!/usr/bin/env node
// The JavaScript cost of one tools/call, without sockets: each node:http target's handler (built by bench/server.js,
// as the throughput runs build it) gets real http.IncomingMessage / http.ServerResponse objects on an in-memory
// socket, one request at a time, in this process. No kernel, no HTTP parser, no load generator: what is left is
// the handler's own work (Node's response writing included), which a loaded 2-core machine cannot blur much. The
// difference to `node-floor` is the middleware's own cost per call; docs/benchmarks.md sets it against the
// throughput ratios and the floor-plus-N-µs references.
//
//   node bench/in-process.js [--smoke] [--requests 8000] [--rounds 12] [--targets node-floor,node-mcp-2026]
//   node --cpu-prof bench/in-process.js --targets node-mcp-2026    # a profile of the middleware alone
//   BENCH_DIST=/tmp/other/dist/cjs node bench/in-process.js        # another build (a patched copy, an older commit)
//   node bench/in-process.js --targets node-mcp-2026 --alloc-profile  # bytes allocated per call, by function
//   node bench/in-process.js --targets node-mcp-session-redis    # the Redis targets only when named (REDIS_URL)
//
// For an A/B, alternate whole runs of the two builds (each in its own process: two builds loaded in one process
// share Node's and zod's inline caches and slow each other down), one target per run: with several targets in a
// process, each one's garbage between rounds changes what the next one's collections keep (docs/benchmarks.md,
// "Collections that churn, closures kept on a request"). `node --trace-gc-nvp` beside it shows what is promoted.
//
// Rounds are interleaved (every target once per round); each target's figure is its least CPU per call over the
// rounds (other jobs only ever add CPU time; the median round is reported beside it). A last, untimed round counts
// the promises each call makes (exact, unlike the time: see promiseCounter). Every answer is checked (status 200,
// the result "5", and for the progress target its notification). Results: bench/results/in-process.json.
'use strict';

const http = require('node:http');
const { Duplex } = require('node:stream');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION, TARGETS } = require('./targets.js');

const inspector = require('node:inspector');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, requests: { type: 'string' }, rounds: { type: 'string' }, targets: { type: 'string' }, 'alloc-profile': { type: 'boolean' } } });

/** The targets measured: no Redis (its round trips are not JavaScript) and no Express (its own cost is not ours). */
const MEASURED = ['node-floor', 'node-floor-2026', 'node-floor-sse', 'node-floor-plus-4us', 'node-least-mcp-2026', 'node-least-mcp-session', 'node-mcp-2026', 'node-mcp-session', 'node-mcp-session-memory', 'node-mcp-session-progress'];
/**
 * Redis targets, measured only when named in --targets (for A/Bs of the Redis path, with bench/ab.js): each call
 * waits for its Redis round trip, one at a time, so its CPU includes the kernel's work on the Redis socket and no
 * two calls share a write; what changes between two builds is still the JavaScript.
 */
const REDIS_MEASURED = ['node-least-mcp-session-redis', 'node-mcp-session-redis', 'node-mcp-session-redis-progress'];
/**
 * The least calls by hand with the standards' features, measured only when named in --targets: they share their
 * handler's code with the least calls (one function, so one set of V8 feedback), and measured in the same process
 * they would make it serve four request shapes instead of two. Name each in a process of its own.
 */
const NAMED_ONLY = ['node-least-standard-2026', 'node-least-standard-session'];

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};
const BASE_HEADERS = { host: '127.0.0.1:3000', 'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'keep-alive' };

/** A request's raw headers (name/value list, Content-Length included; made once per shape). */
function requestHead(headers, body) {
  return { rawHeaders: Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) }).flat() };
}

/**
 * Runs one request through `handler` on an in-memory socket; resolves with the raw HTTP answer (status line,
 * headers, body) once the response has finished. `head` is shared by every call of the same shape.
 */
function inject(handler, head, body) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
      writev(list, callback) {
        for (const { chunk } of list) chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    const req = new http.IncomingMessage(socket);
    req.method = 'POST';
    req.url = '/mcp';
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.httpVersion = '1.1';
    // As Node's HTTP parser does: the raw name/value list, from which req.headers is built (a new object per
    // request, as on the wire); Node's server reads it once for every HTTP/1.1 request (the Expect check).
    req._addHeaderLines(head.rawHeaders, head.rawHeaders.length);
    void req.headers.expect;
    const res = new http.ServerResponse(req);
    res.assignSocket(socket);
    res.on('finish', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    handler(req, res);
    req.push(Buffer.from(body));
    req.complete = true;
    req.push(null);
  });
}

/** The status and the JSON-RPC messages of a raw answer (a JSON body, or the data of SSE events, chunked or not). */
function parseAnswer(raw) {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  let body = rest.join('\r\n\r\n');
  if (/\r\ntransfer-encoding: chunked/i.test(head)) {
    let text = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.slice(at, eol), 16);
      if (!size) break;
      text += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = text;
  }
  const sessionId = /\r\nmcp-session-id: ([^\r]+)/i.exec(head)?.[1];
  if (/\r\ncontent-type: application\/json/i.test(head)) return { status, sessionId, messages: body ? [JSON.parse(body)] : [] };
  return { status, sessionId, messages: kit.sseEvents(body).filter((e) => e.data !== undefined).map((e) => e.data) };
}

/**
 * --alloc-profile: V8's sampling heap profiler over each target's measured rounds, counting objects collected since
 * (what a request allocates is garbage soon after), by the function that allocated them. Sampled every 512 bytes
 * on average, so a function's bytes per call are an estimate; the CPU figures of such a run include the sampling.
 */
function allocationSampler() {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  return {
    start: () => post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
    /** Stops sampling and adds each function's sampled bytes to `into` (a Map of "function (file:line)" to bytes). */
    async stop(into) {
      const { profile } = await post('HeapProfiler.stopSampling');
      const visit = (node) => {
        const frame = node.callFrame;
        if (node.selfSize > 0) {
          const file = frame.url.replace(/^.*\/(dist\/cjs|lib|bench|node_modules)\//, '$1/').replace(/^node:/, '');
          const key = `${frame.functionName || '(anonymous)'} (${file || 'native'}:${frame.lineNumber + 1})`;
          into.set(key, (into.get(key) ?? 0) + node.selfSize);
        }
        for (const child of node.children) visit(child);
      };
      visit(profile.head);
    },
  };
}

/** The first id of the calls: every id from here to 10× has as many digits. */
const FIRST_ID = 10_000_000;

/** One request of its own shape (initialize, notifications/initialized). */
function injectOnce(handler, headers, body) {
  return inject(handler, requestHead(headers, body), body);
}

/** What one call of a target sends, and the check of its answer. */
async function prepare(name, handler) {
  // The request shape comes from the target's entry in bench/targets.js, as the throughput runs take it.
  const { modern = false, progress = false, mcp } = TARGETS.find((target) => target.name === name);
  let headers = BASE_HEADERS;
  if (modern) headers = { ...BASE_HEADERS, 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'sum' };
  else if (mcp) {
    const init = parseAnswer(
      await injectOnce(handler, BASE_HEADERS, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } })),
    );
    if (init.status !== 200 || !init.sessionId) throw new Error(`${name}: initialize answered ${init.status}`);
    headers = { ...BASE_HEADERS, 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-session-id': init.sessionId };
    const initialized = parseAnswer(await injectOnce(handler, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}'));
    if (initialized.status !== 202) throw new Error(`${name}: notifications/initialized answered ${initialized.status}`);
  }
  // Ids of FIRST_ID on have the same number of digits: one body length, so one head for every call, and the body
  // is two strings around the id (the harness's own cost stays small beside what it measures).
  const [before, middle, after] = JSON.stringify({ jsonrpc: '2.0', id: -1, method: 'tools/call', params: { name: progress ? 'sum_progress' : 'sum', arguments: { a: 2, b: 3 }, _meta: modern ? MODERN_META : progress ? { progressToken: -1 } : undefined } }).split('-1');
  const body = (id) => (progress ? `${before}${id}${middle}${id}${after}` : `${before}${id}${middle}`);
  const head = requestHead(headers, body(FIRST_ID));
  const check = (raw, id) => {
    const { status, messages } = parseAnswer(raw);
    const final = messages.at(-1);
    const ok = status === 200 && final?.id === id && final.result?.content?.[0]?.text === '5';
    const notified = !progress || (messages.length === 2 && messages[0].method === 'notifications/progress' && messages[0].params.progressToken === id);
    if (!ok || !notified) throw new Error(`${name}: call ${id} answered ${raw.slice(0, 400)}`);
  };
  return {
    call: (id) => {
      if (id < FIRST_ID || id >= FIRST_ID * 10) throw new Error(`id ${id} is out of the range of one body length`);
      return inject(handler, head, body(id));
    },
    check,
  };
}

/**
 * The promises each call makes (`v8.promiseHooks.onInit`), counted in a round of their own after the timed ones: an
 * exact count, the same in every run of a build, where the CPU time of a promise step or two is lost in the noise of
 * a shared machine. It counts an `async` function's own promise, a `new Promise`, a `then`, and (with the hook on)
 * one per `await`; the harness's own two (its promise and its `await`) are in every target's count. The hook puts
 * V8 on its slower promise paths, so that round is not timed.
 */
function promiseCounter() {
  const v8 = require('node:v8');
  let made = 0;
  let stop;
  return {
    start: () => {
      stop = v8.promiseHooks.onInit(() => made++);
    },
    /** Stops counting; the promises made since `start`. */
    stop: () => {
      stop();
      const count = made;
      made = 0;
      return count;
    },
  };
}

kit.runScenario('in-process', async (smoke) => {
  const requests = Number(values.requests ?? (smoke ? 100 : 8000));
  const rounds = Number(values.rounds ?? (smoke ? 1 : 12));
  const { builders } = require('./server.js');
  const targets = [];
  const wanted = values.targets ? values.targets.split(',') : MEASURED;
  const known = [...MEASURED, ...REDIS_MEASURED, ...NAMED_ONLY];
  for (const name of wanted) if (!known.includes(name)) throw new Error(`--targets: ${name} is not one of ${known.join(', ')}`);
  for (const name of wanted) {
    const built = await builders[name]();
    const { call, check } = await prepare(name, built.handler);
    targets.push({ name, built, call, check, rounds: [], allocations: new Map(), promisesPerCall: undefined });
  }
  const sampler = values['alloc-profile'] ? allocationSampler() : undefined;
  let id = FIRST_ID;
  // Warm-up: every target's code optimised before anything is measured; every answer checked here and after.
  for (const target of targets) for (let i = 0; i < Math.min(requests, 2000); i++, id++) target.check(await target.call(id), id);
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      await sampler?.start();
      const cpu = process.cpuUsage();
      const start = process.hrtime.bigint();
      let last;
      for (let i = 0; i < requests; i++) last = await target.call(++id);
      const wallNs = Number(process.hrtime.bigint() - start);
      const used = process.cpuUsage(cpu);
      await sampler?.stop(target.allocations);
      target.check(last, id);
      target.rounds.push({ cpuUs: (used.user + used.system) / requests, wallUs: wallNs / 1000 / requests });
    }
  }
  // The promise count, after the timed rounds (the hook slows what it watches).
  const promises = promiseCounter();
  const counted = Math.min(requests, 1000);
  for (const target of targets) {
    promises.start();
    let last;
    for (let i = 0; i < counted; i++) last = await target.call(++id);
    target.promisesPerCall = promises.stop() / counted;
    target.check(last, id);
  }
  const floorTarget = targets.find((t) => t.name === 'node-floor');
  // The least CPU a target took in a round: other jobs on the machine only ever add to CPU time (shared caches,
  // the other hyperthread), so the minimum over many short interleaved rounds is the figure they disturb least.
  const least = (t) => Math.min(...t.rounds.map((r) => r.cpuUs));
  const floor = floorTarget ? least(floorTarget) : NaN;
  const results = targets.map((t) => {
    const cpuUs = least(t);
    return { target: t.name, cpuUsPerCall: cpuUs, medianCpuUsPerCall: kit.median(t.rounds.map((r) => r.cpuUs)), overFloorUs: cpuUs - floor, promisesPerCall: t.promisesPerCall, rounds: t.rounds };
  });
  for (const r of results) {
    console.log(`${r.target.padEnd(28)} ${r.cpuUsPerCall.toFixed(1).padStart(6)} µs CPU per call (${r.overFloorUs >= 0 ? '+' : ''}${r.overFloorUs.toFixed(1)} over the floor; median round ${r.medianCpuUsPerCall.toFixed(1)}); ${r.promisesPerCall.toFixed(2)} promises per call`);
  }
  if (sampler) {
    for (const t of targets) {
      const calls = requests * rounds;
      const total = [...t.allocations.values()].reduce((sum, bytes) => sum + bytes, 0);
      console.log(`\n${t.name}: ${(total / calls).toFixed(0)} bytes allocated per call (sampled), by function:`);
      for (const [where, bytes] of [...t.allocations].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(bytes / calls).toFixed(0).padStart(6)}  ${where}`);
    }
  }
  for (const t of targets) await t.built.close?.();
  // A partial run (--targets) is for looking, not for the committed results.
  kit.writeResult('in-process', { settings: { requests, rounds }, results }, { smoke: smoke || Boolean(values.targets) || Boolean(sampler) });
  if (smoke) console.log('in-process smoke: every answer checked: OK');
}, 600);
