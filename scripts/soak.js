#!/usr/bin/env node
// Memory soak: `npm run soak` (not part of `npm test`). Runs each resource-exhaustion attack of issue 7 at the
// issue's scale against the "everything" example (scripts/soak-server.js, a fresh process per attack) and prints,
// per attack, the server's RSS and heap before, at the peak, while the attack's state is held and after its
// connections closed. An attack passes when the server's RSS grew by less than 50 MB (held or after, each measured
// after a full GC) and its own condition holds (attack 8: the server closes the connection; attack 10: the other
// session's replay still works). Every response with a status of 500 or more is counted; there must be none.
// Exit code 0 when everything passes, 1 otherwise.
//
//   node scripts/soak.js [attack ...]     e.g. `node scripts/soak.js init-metadata listen-filters`
//   SOAK_ROOT=/path/to/other/checkout node scripts/soak.js   measures another build (its dist/)
//   SOAK_VERBOSE=1 node scripts/soak.js   adds the server's process.memoryUsage() at each measurement
//   SOAK_SETTLE_MS=10000                  quiet time before the held and after measurements (default 10 s)
//   SOAK_WARMUP=32                        ordinary 4 MB requests before the baseline (see warmUp; 0: none)
//
// RSS is read from /proc/<pid>/status of the server process (Linux); the peak is VmHWM, reset before each attack
// through /proc/<pid>/clear_refs, or the highest of the samples taken every 200 ms where that is not allowed.
'use strict';

const { fork } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const MB = 1_000_000;
const GROWTH_LIMIT = 50 * MB;
/** No attack may run longer than this, whatever happens. */
const ATTACK_DEADLINE_MS = 90_000;
/**
 * Quiet time of the held and after measurements. V8 keeps the heap pages a burst of garbage needed for a while
 * (its memory reducer gives them back after some seconds of low allocation), and a forced GC alone does not return
 * them; measuring at once would count that transient heap as retained.
 */
const SETTLE_MS = Number(process.env.SOAK_SETTLE_MS ?? 10_000);
const SESSION_VERSION = '2025-11-25';
const STATELESS_VERSION = '2026-07-28';

const serverScript = path.join(__dirname, 'soak-server.js');
let serverErrors = 0;

// ---------------------------------------------------------------------------------------------------------------
// The server process and its memory

async function startServer(env = {}) {
  const child = fork(serverScript, [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the soak server did not start within 20 s')), 20_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the soak server exited with code ${code} before it was ready (is dist/ built? npm run build)`));
    });
  });
  return { child, pid: child.pid, port };
}

async function stopServer(server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function procStatus(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** RSS from /proc and the heap as the server reports it, both after a full GC in the server. */
async function measure(server) {
  const reply = await request(server.port, { method: 'GET', path: '/__soak/memory', timeoutMs: 30_000 });
  const usage = JSON.parse(reply.text);
  const { rss } = procStatus(server.pid);
  return { rss: Number.isFinite(rss) ? rss : usage.rss, heap: usage.heapUsed, usage };
}

/**
 * What the server holds once it is quiet: a GC, SETTLE_MS of quiet with RSS sampled, a GC again. The RSS is the
 * lowest seen (what is retained is in every sample; pages V8 or malloc give back late are not), the heap the last.
 */
async function settledMeasure(server) {
  const first = await measure(server);
  let lowest = first.rss;
  const until = Date.now() + SETTLE_MS;
  while (Date.now() < until) {
    await sleep(500);
    const { rss } = procStatus(server.pid);
    if (rss < lowest) lowest = rss;
  }
  const last = await measure(server);
  return { ...last, rss: Math.min(lowest, last.rss) };
}

/** Follows the server's peak RSS during an attack. */
function peakTracker(pid) {
  let resettable = true;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resettable = false;
  }
  let sampled = 0;
  const sample = () => {
    const { rss } = procStatus(pid);
    if (rss > sampled) sampled = rss;
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const { hwm } = procStatus(pid);
      return resettable && Number.isFinite(hwm) ? Math.max(hwm, sampled) : sampled;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers

function countStatus(status) {
  if (status >= 500) serverErrors++;
}

/**
 * One HTTP request; resolves with the status, headers and body text. `onData(text, res)` sees the body as it
 * arrives and may return true to stop reading (the connection is then destroyed).
 */
function request(port, { method = 'POST', path: urlPath = '/mcp', headers = {}, body, agent = false, timeoutMs = 30_000, onData } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, agent, headers: payload ? { ...headers, 'Content-Length': payload.length } : headers },
      (res) => {
        countStatus(res.statusCode);
        const chunks = [];
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          if (onData) {
            text += chunk;
            if (onData(text, res)) {
              clearTimeout(timer);
              resolve({ status: res.statusCode, headers: res.headers, text, stopped: true });
              req.destroy();
            }
          } else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode, headers: res.headers, text: onData ? text : chunks.join('') });
        });
        res.on('error', () => undefined);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${urlPath} got no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(payload);
  });
}

function sessionHeaders(sessionId, principal) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': SESSION_VERSION };
  if (sessionId) headers['Mcp-Session-Id'] = sessionId;
  if (principal) headers['X-Soak-Principal'] = principal;
  return headers;
}

/** The events of an SSE body: `{ id, data }`, with `message` when the data is JSON. */
function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const event = { id: undefined, data: '' };
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('id:')) event.id = line.slice(3).trim();
      else if (line.startsWith('data:')) event.data += line.slice(5).trimStart();
    }
    if (event.data) {
      try {
        event.message = JSON.parse(event.data);
      } catch {
        // a partial event at the end of a cut-off body
      }
    }
    events.push(event);
  }
  return events;
}

/** Starts a session (initialize + notifications/initialized) and returns its id. */
async function openSession(port, { agent = false, capabilities = {}, principal } = {}) {
  const reply = await request(port, {
    agent,
    headers: sessionHeaders(undefined, principal),
    body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: SESSION_VERSION, capabilities, clientInfo: { name: 'soak', version: '1.0.0' } } },
  });
  const sessionId = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || !sessionId) throw new Error(`initialize answered ${reply.status}: ${reply.text.slice(0, 200)}`);
  await request(port, { agent, headers: sessionHeaders(sessionId, principal), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  return sessionId;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once. */
async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

function tally(statuses, status) {
  statuses[status] = (statuses[status] ?? 0) + 1;
}

function describeStatuses(statuses) {
  return Object.entries(statuses)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// The attacks. Each gets { port, held } and calls `await held()` while what it sent is still held by the server
// (its connections open), then closes its connections. It returns { note, ok? } (ok false fails the attack).

const ATTACKS = [
  {
    name: 'init-metadata',
    title: '1. 60 initialize × 4 MB clientInfo',
    async run({ port, held }) {
      const padding = 'x'.repeat(4_000_000);
      const body = Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: SESSION_VERSION, capabilities: {}, clientInfo: { name: 'soak', version: '1.0.0', padding } },
        }),
      );
      const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
      const statuses = {};
      let sessions = 0;
      await pool(60, 4, async () => {
        const reply = await request(port, { agent, headers: sessionHeaders(), body });
        tally(statuses, reply.status);
        if (reply.headers['mcp-session-id']) sessions++;
      });
      await held();
      agent.destroy();
      return { note: `${sessions} sessions opened (${describeStatuses(statuses)})` };
    },
  },
  {
    name: 'retained-streams',
    title: '2. 64 tools/call echoing 4 MB, one session',
    async run({ port, held }) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const sessionId = await openSession(port, { agent });
      const text = 'e'.repeat(4_000_000);
      let echoed = 0;
      const statuses = {};
      for (let i = 1; i <= 64; i++) {
        const reply = await request(port, {
          agent,
          headers: sessionHeaders(sessionId),
          body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'soak_echo', arguments: { text } } },
        });
        tally(statuses, reply.status);
        const result = parseSse(reply.text).find((event) => event.message?.id === i)?.message;
        if (result?.result?.content?.[0]?.text?.length === text.length) echoed++;
      }
      await held();
      agent.destroy();
      // Bounding what is kept must not cost delivery: a client that reads at once gets every result.
      return { ok: echoed === 64, note: `${echoed} of 64 results delivered whole to a client reading at once (${describeStatuses(statuses)})` };
    },
  },
  {
    name: 'inflight-requests',
    title: '3. 4000 tools/call waiting on elicitation, dropped',
    async run({ port, held }) {
      const sessionId = await openSession(port, { capabilities: { elicitation: {} } });
      let waiting = 0;
      let refused = 0;
      let other = 0;
      const headers = sessionHeaders(sessionId);
      await pool(4000, 32, async (i) => {
        const id = i + 1;
        try {
          const reply = await request(port, {
            headers,
            timeoutMs: 10_000,
            body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_elicitation', arguments: { message: 'soak' } } },
            // The client drops the connection as soon as the server asks it something (or answers).
            onData: (text) => text.includes('elicitation/create') || text.includes(`"id":${id},`),
          });
          if (reply.text.includes('elicitation/create')) waiting++;
          else if (reply.text.includes('"error"')) refused++;
          else other++;
        } catch {
          other++;
        }
      });
      await held();
      return { note: `${waiting} left waiting, ${refused} refused, ${other} other` };
    },
  },
  {
    name: 'sse-backpressure',
    title: '4. 100 MB of progress to a paused reader',
    async run({ port, held }) {
      const sessionId = await openSession(port);
      const total = 100 * MB;
      let response;
      let received = 0;
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers: sessionHeaders(sessionId) }, (res) => {
        countStatus(res.statusCode);
        response = res;
        res.on('data', (chunk) => {
          received += chunk.length;
        });
        res.on('error', () => undefined);
        // The client stops reading: the socket fills and the server's writes report backpressure.
        res.pause();
        res.socket.pause();
      });
      req.on('error', () => undefined);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'soak_flood', arguments: { bytes: total, chunkBytes: 65_536 }, _meta: { progressToken: 'flood' } },
        }),
      );
      // Wait until the handler has sent everything (it does not wait for the client).
      const started = Date.now();
      let state;
      for (;;) {
        state = JSON.parse((await request(port, { method: 'GET', path: '/__soak/state' })).text).floods;
        if (state.finished >= 1 || Date.now() - started > 45_000) break;
        await sleep(250);
      }
      await held();
      req.destroy();
      return {
        note: `handler ${state.finished >= 1 ? 'sent' : 'had not finished sending'} ${Math.round(state.bytesSent / MB)} MB; client read ${(received / MB).toFixed(1)} MB (status ${response?.statusCode ?? 'none'})`,
      };
    },
  },
  {
    name: 'listen-filters',
    title: '5. 100 subscriptions/listen × 3.8 MB of URIs',
    async run({ port, held }) {
      const uris = [];
      let size = 0;
      for (let i = 0; size < 3_800_000; i++) {
        const uri = `test://soak/resource/${i}`;
        uris.push(uri);
        size += uri.length + 3;
      }
      const body = Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'listen',
          method: 'subscriptions/listen',
          params: {
            notifications: { resourceSubscriptions: uris },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1.0.0' },
            },
          },
        }),
      );
      const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': STATELESS_VERSION,
        'Mcp-Method': 'subscriptions/listen',
      };
      const open = [];
      const statuses = {};
      await pool(100, 8, () =>
        new Promise((resolve) => {
          const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers: { ...headers, 'Content-Length': body.length } }, (res) => {
            countStatus(res.statusCode);
            tally(statuses, res.statusCode);
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => {
              // Read the acknowledgement, then keep the stream open (and keep reading, discarding).
              if (text !== null) {
                text += chunk;
                if (/\r?\n\r?\n/.test(text)) {
                  text = null;
                  resolve();
                }
              }
            });
            res.on('end', resolve);
            res.on('error', resolve);
          });
          req.on('error', resolve);
          req.setTimeout(30_000, () => {
            req.destroy();
            resolve();
          });
          open.push(req);
          req.end(body);
        }),
      );
      await held();
      for (const req of open) req.destroy();
      return { note: `${statuses[200] ?? 0} streams opened (${describeStatuses(statuses)})` };
    },
  },
  {
    name: 'chunked-after-413',
    title: '8. endless chunked upload after a 413',
    async run({ port, held }) {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      let closed = false;
      let answer = '';
      let status;
      let writtenAfter413 = 0;
      socket.on('data', (chunk) => {
        if (status !== undefined) return;
        answer += chunk.toString('latin1');
        const match = /^HTTP\/1\.1 (\d{3})/.exec(answer);
        if (match) {
          status = Number(match[1]);
          countStatus(status);
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        closed = true;
      });
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n',
      );
      const data = Buffer.alloc(65_536, 0x20);
      const chunk = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
      const limitBytes = 1024 * 1024 * 1024;
      const limitMs = 5000;
      const startedAt = Date.now();
      let after413Since;
      let wake;
      socket.on('drain', () => wake?.());
      socket.on('close', () => wake?.());
      // Writes as fast as the server reads; counts what it takes once it has answered.
      while (!closed) {
        const now = Date.now();
        if (status !== undefined) after413Since ??= now;
        if (after413Since !== undefined && (writtenAfter413 >= limitBytes || now - after413Since >= limitMs)) break;
        if (after413Since === undefined && now - startedAt > 20_000) break; // no answer at all: give up
        const flowing = socket.write(chunk);
        if (status !== undefined) writtenAfter413 += chunk.length;
        if (!flowing) {
          await Promise.race([new Promise((resolve) => (wake = resolve)), sleep(250)]);
          wake = undefined;
        }
      }
      await sleep(200);
      const serverClosed = closed;
      await held();
      socket.destroy();
      return {
        ok: serverClosed,
        note: `answer ${status ?? 'none'}; ${(writtenAfter413 / MB).toFixed(1)} MB taken after it; connection ${serverClosed ? 'closed by the server' : 'left open by the server'}`,
      };
    },
  },
  {
    name: 'event-store-eviction',
    title: '10. 10000 pings vs another session\'s replay',
    env: { SOAK_EVENT_STORE: '1' },
    async run({ port, held }) {
      const victim = await openSession(port, { principal: 'victim' });
      const call = await request(port, {
        headers: sessionHeaders(victim, 'victim'),
        body: { jsonrpc: '2.0', id: 'victim-sum', method: 'tools/call', params: { name: 'sum', arguments: { a: 2, b: 3 } } },
      });
      const firstId = parseSse(call.text).find((event) => event.id)?.id;
      if (!firstId) throw new Error(`the victim's call had no event id: ${call.text.slice(0, 200)}`);
      const replay = async () => {
        const reply = await request(port, {
          method: 'GET',
          headers: { ...sessionHeaders(victim, 'victim'), 'Last-Event-ID': firstId },
          timeoutMs: 10_000,
        });
        return parseSse(reply.text).filter((event) => event.message?.id === 'victim-sum').length;
      };
      const replayedBefore = await replay();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      const attacker = await openSession(port, { agent, principal: 'attacker' });
      const headers = sessionHeaders(attacker, 'attacker');
      const statuses = {};
      await pool(10_000, 16, async (i) => {
        const reply = await request(port, { agent, headers, body: { jsonrpc: '2.0', id: i + 1, method: 'ping' } });
        tally(statuses, reply.status);
      });
      const replayedAfter = await replay();
      await held();
      agent.destroy();
      return {
        ok: replayedBefore === 1 && replayedAfter === 1,
        note: `pings ${describeStatuses(statuses)}; victim's result replayed ${replayedBefore}× before, ${replayedAfter}× after`,
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Runner

/**
 * Ordinary traffic before the baseline: WARMUP_REQUESTS stateless `tools/call`s of `sum` with a 4 MB argument the
 * tool ignores, 8 at a time. Reading large bodies concurrently raises the allocator's high-water mark (malloc keeps
 * freed read buffers for reuse) in any server that accepts bodies of `maxBodyBytes`; the warm-up pays that before
 * the baseline, so that an attack is charged only with what it makes the server keep.
 */
const WARMUP_REQUESTS = Number(process.env.SOAK_WARMUP ?? 32);

async function warmUp(port) {
  const body = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'warm-up',
      method: 'tools/call',
      params: {
        name: 'sum',
        arguments: { a: 1, b: 2, padding: 'w'.repeat(4_000_000) },
        _meta: { 'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    }),
  );
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': STATELESS_VERSION,
    'Mcp-Method': 'tools/call',
    'Mcp-Name': 'sum',
  };
  await pool(WARMUP_REQUESTS, 8, async () => {
    const reply = await request(port, { headers, body });
    if (reply.status !== 200) throw new Error(`warm-up request answered ${reply.status}: ${reply.text.slice(0, 200)}`);
  });
}

function mb(bytes) {
  return Number.isFinite(bytes) ? (bytes / MB).toFixed(1) : '?';
}

async function runAttack(attack) {
  const server = await startServer(attack.env);
  try {
    await warmUp(server.port);
    const before = await settledMeasure(server);
    const peak = peakTracker(server.pid);
    let heldAt;
    const context = {
      port: server.port,
      held: async () => {
        heldAt = await settledMeasure(server);
      },
    };
    let outcome;
    let deadlineTimer;
    try {
      outcome = await Promise.race([
        attack.run(context),
        new Promise((_, reject) => {
          deadlineTimer = setTimeout(() => reject(new Error(`did not finish within ${ATTACK_DEADLINE_MS / 1000} s`)), ATTACK_DEADLINE_MS);
        }),
      ]);
    } catch (error) {
      outcome = { ok: false, note: `attack failed: ${error.message}` };
    } finally {
      clearTimeout(deadlineTimer);
    }
    const after = await settledMeasure(server);
    const peakRss = peak.stop();
    heldAt ??= after;
    const growth = Math.max(heldAt.rss, after.rss) - before.rss;
    const pass = growth < GROWTH_LIMIT && outcome.ok !== false;
    return { attack, before, peakRss, held: heldAt, after, growth, pass, note: outcome.note };
  } finally {
    await stopServer(server);
  }
}

function printRow(cells, widths) {
  console.log(cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  '));
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !ATTACKS.some((attack) => attack.name === name));
  if (unknown.length) {
    console.error(`Unknown attack ${unknown.join(', ')}; choose from ${ATTACKS.map((attack) => attack.name).join(', ')}.`);
    process.exit(2);
  }
  const attacks = wanted.length ? ATTACKS.filter((attack) => wanted.includes(attack.name)) : ATTACKS;
  const root = path.resolve(process.env.SOAK_ROOT ?? path.join(__dirname, '..'));
  console.log(`Memory soak of ${path.join(root, 'dist/examples/everything')} (default options), node ${process.version}`);
  console.log(`RSS of the server process (the lowest over ${SETTLE_MS / 1000} s of quiet) and heap used, after a full GC; MB = 10^6 bytes.`);
  console.log("held: while the attack's connections are open; after: once they closed. growth = max(held, after) - before; limit 50 MB.\n");
  const widths = [52, 14, 9, 14, 14, 8, 6];
  printRow(['attack', 'before rss/heap', 'peak rss', 'held rss/heap', 'after rss/heap', 'growth', ''], widths);
  const results = [];
  for (const attack of attacks) {
    const result = await runAttack(attack);
    results.push(result);
    printRow(
      [
        attack.title,
        `${mb(result.before.rss)}/${mb(result.before.heap)}`,
        mb(result.peakRss),
        `${mb(result.held.rss)}/${mb(result.held.heap)}`,
        `${mb(result.after.rss)}/${mb(result.after.heap)}`,
        `${result.growth >= 0 ? '+' : ''}${mb(result.growth)}`,
        result.pass ? 'PASS' : 'FAIL',
      ],
      widths,
    );
    console.log(`${' '.repeat(4)}${result.note}`);
    if (process.env.SOAK_VERBOSE === '1') {
      for (const moment of ['before', 'held', 'after']) {
        const { rss, heapTotal, heapUsed, external, arrayBuffers } = result[moment].usage;
        console.log(`${' '.repeat(4)}${moment}: rss ${mb(rss)}, heapTotal ${mb(heapTotal)}, heapUsed ${mb(heapUsed)}, external ${mb(external)}, arrayBuffers ${mb(arrayBuffers)}`);
      }
    }
  }
  const passed = results.filter((result) => result.pass).length;
  const ok = passed === results.length && serverErrors === 0;
  console.log(`\nResponses with status >= 500: ${serverErrors}`);
  console.log(`soak: ${passed} of ${results.length} attacks passed, ${serverErrors} responses >= 500: ${ok ? 'PASS' : 'FAIL'}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
