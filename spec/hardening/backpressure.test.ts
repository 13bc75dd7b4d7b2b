import http from 'node:http';
import { z } from 'zod';
import { InMemoryEventStore, LocalSessionManager, McpServer, type LocalSessionManagerOptions } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive } from '../helpers/http-helpers.js';
import { serve, type Served } from '../helpers/serve.js';
import { messagesOf, parseSseFrames } from '../helpers/sse.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

const VERSION = '2025-11-25';
const NOTE_SIZE = 16 * 1024;
const MAX_BUFFERED = 256 * 1024;

/** What the flood tool did, for the assertions. */
interface FloodLog {
  emitted: number;
  aborted: boolean;
  finished: boolean;
}

/** flood: `count` progress notifications of 16 KB each, awaited (a well-behaved handler) or fired and forgotten. */
function buildServer(log: FloodLog): McpServer {
  const server = new McpServer({ name: 'backpressure', version: '1.0.0' });
  server.tool('flood', { inputSchema: { count: z.number().int(), awaitEach: z.boolean() } }, async ({ count, awaitEach }, ctx) => {
    const note = 'n'.repeat(NOTE_SIZE);
    ctx.signal.addEventListener('abort', () => (log.aborted = true));
    for (let i = 1; i <= count && !ctx.signal.aborted; i++) {
      const sent = ctx.progress(i, count, note);
      log.emitted = i;
      if (awaitEach) await sent;
    }
    log.finished = true;
    return { content: [{ type: 'text', text: `flooded ${count}` }] };
  });
  return server;
}

let served: Served | undefined;
let log: FloodLog;
const open: http.ClientRequest[] = [];
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await served?.close();
  served = undefined;
});

async function start(options: LocalSessionManagerOptions = {}, version = VERSION): Promise<{ s: Served; sessionId: string }> {
  log = { emitted: 0, aborted: false, finished: false };
  served = await serve({
    server: buildServer(log),
    sseKeepAlive: 0,
    maxBufferedBytesPerStream: MAX_BUFFERED,
    sessionManager: new LocalSessionManager({ onError: () => undefined, ...options }),
  });
  const init = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(version, 1) });
  await init.ended;
  return { s: served, sessionId: init.headers['mcp-session-id'] as string };
}

/** A client that sends the call and then stops reading (its socket's receive side is paused) until `read()`. */
function pausedCall(s: Served, sessionId: string, count: number, awaitEach: boolean, version = VERSION) {
  let text = '';
  let ended = false;
  let reading = false;
  let response: http.IncomingMessage | undefined;
  const endedPromise = new Promise<void>((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'flood', arguments: { count, awaitEach }, _meta: { progressToken: 'p' } } });
    const req = http.request({ host: '127.0.0.1', port: s.port, path: '/mcp', method: 'POST', headers: { ...clientHeaders(version, sessionId), 'Content-Length': Buffer.byteLength(body) }, agent: false }, (res) => {
      response = res;
      // Paused until read(), unless read() came first (a flood can end before the headers reach the client).
      if (!reading) res.pause();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        ended = true;
        resolve();
      });
      res.on('close', () => {
        ended = true;
        resolve();
      });
    });
    req.on('error', reject);
    open.push(req);
    req.end(body);
  });
  return {
    read: () => {
      reading = true;
      response?.resume();
    },
    ended: endedPromise,
    isEnded: () => ended,
    text: () => text,
  };
}

/** Resolves once `read()` stops changing for `quietMs` (the producer has stalled). */
async function settled(read: () => number, quietMs = 300, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return now;
    }
  }
  throw new Error('the value never settled');
}

function progressOf(text: string): number[] {
  return messagesOf(parseSseFrames(text))
    .filter((message) => 'method' in message && message.method === 'notifications/progress')
    .map((message) => (message as unknown as { params: { progress: number } }).params.progress);
}

test('a handler that awaits progress is slowed by a client that does not read, and nothing is lost when it reads again', async () => {
  const { s, sessionId } = await start();
  const count = 4000; // 64 MB of progress: far more than socket buffers and the stream's queue hold
  const call = pausedCall(s, sessionId, count, true);
  const stalledAt = await settled(() => log.emitted);
  // Stalled well short of the end: what waits is bounded by the queue plus the sockets' buffers.
  expect(stalledAt).toBeLessThan(count);
  expect(log.finished).toBe(false);

  call.read();
  await call.ended;
  expect(log.finished).toBe(true);
  expect(progressOf(call.text())).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  expect(messagesOf(parseSseFrames(call.text())).at(-1)).toMatchObject({ id: 7, result: { content: [{ text: `flooded ${count}` }] } });
});

test('without an EventStore, a reader that falls maxBufferedBytesPerStream behind gets an error response and the request is cancelled', async () => {
  const { s, sessionId } = await start();
  const call = pausedCall(s, sessionId, 2000, false);
  await settled(() => log.emitted);
  call.read();
  await call.ended;
  const messages = messagesOf(parseSseFrames(call.text()));
  expect(messages.at(-1)).toMatchObject({ id: 7, error: { code: -32000, message: expect.stringContaining('maxBufferedBytesPerStream') } });
  expect(messages.filter((message) => 'result' in message)).toHaveLength(0);
  expect(log.aborted).toBe(true);
  // Far less than the flood reached the client: the rest was never buffered.
  expect(progressOf(call.text()).length).toBeLessThan(2000);
});

test.each([
  ['2025-11-25', 'the priming event'],
  ['2025-06-18', 'no priming event'],
])('with an EventStore, a reader that falls behind is disconnected with a retry hint and resumes everything, once (%s: %s)', async (version) => {
  const eventStore = new InMemoryEventStore({ maxEventsPerStream: 10_000, maxBytes: 256 * 1024 * 1024 });
  const { s, sessionId } = await start({ eventStore, maxRetainedBytesPerSession: 1024 * 1024 }, version);
  const count = 600;
  const call = pausedCall(s, sessionId, count, false, version);
  await settled(() => log.emitted);
  call.read();
  await call.ended;
  const frames = parseSseFrames(call.text());
  // The connection ended with a bare retry hint (no data: nothing a client would dispatch), before the result.
  // The handler fires its notifications without awaiting them, before anything is written: what the client got
  // first (the priming event, or for an older client the first notification) still came, with its id.
  expect(call.text()).toMatch(/\nretry: \d+\n\n$/);
  expect(frames.some((frame) => frame.id !== undefined)).toBe(true);
  expect(messagesOf(frames).some((message) => 'result' in message)).toBe(false);
  const lastId = [...frames].reverse().find((frame) => frame.id !== undefined)!.id!;
  const before = progressOf(call.text());

  const resumed = await openLive(s, { method: 'GET', headers: { ...clientHeaders(version, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  await resumed.ended;
  const after = progressOf(resumed.text());
  expect([...before, ...after]).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  expect(resumed.messages().at(-1)).toMatchObject({ id: 7, result: { content: [{ text: `flooded ${count}` }] } });
  expect(log.aborted).toBe(false);
});

test('one message larger than maxBufferedBytesPerStream (a big result) reaches a client that reads', async () => {
  served = await serve({ server: echoServer(), sseKeepAlive: 0, maxBufferedBytesPerStream: MAX_BUFFERED });
  const init = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 1) });
  await init.ended;
  const big = 'b'.repeat(1_500_000); // six times the limit
  const echo = await openLive(served, {
    method: 'POST',
    headers: clientHeaders(VERSION, init.headers['mcp-session-id'] as string),
    body: { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'echo', arguments: { text: big } } },
    waitForHeaders: false,
  });
  await echo.ended;
  expect(echo.messages().at(-1)).toMatchObject({ id: 10, result: { content: [{ text: big }] } });
});

function echoServer(): McpServer {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.tool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}
