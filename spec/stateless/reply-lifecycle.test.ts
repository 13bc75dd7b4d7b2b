/**
 * How an unpersisted 2026-07-28 reply ends in each way it can: shaped by its first message even when the handler
 * sends it before its first await; cut short by `close()` before anything was sent and mid-stream; ended for a
 * reader too slow for it; cancelled by a client that leaves before any output. And a finished reply leaves nothing
 * behind for `close()` to wait for.
 */
import http from 'node:http';
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { envelope, modernBody, modernHeaders, waitUntil } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { messagesOf, parseSseFrames } from '../helpers/sse.js';

const MAX_BUFFERED = 256 * 1024;
const NOTE_SIZE = 16 * 1024;

interface Journal {
  started: Set<number>;
  aborted: Set<number>;
  emitted: number;
}

function buildServer(journal: Journal): McpServer {
  const server = new McpServer({ name: 'reply-lifecycle', version: '1.0.0' });
  // Waits until cancelled; with `progressFirst`, sends one progress notification first.
  server.tool('wait', { inputSchema: { progressFirst: z.boolean() } }, async ({ progressFirst }, ctx) => {
    journal.started.add(ctx.requestId as number);
    if (progressFirst) await ctx.progress(1);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    journal.aborted.add(ctx.requestId as number);
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  // Sends progress synchronously, before the handler's first await, then answers.
  server.tool('eager', { inputSchema: {} }, async (_args, ctx) => {
    void ctx.progress(1, 2);
    void ctx.progress(2, 2);
    await Promise.resolve();
    return { content: [{ type: 'text', text: 'eager done' }] };
  });
  // Fires `count` progress notifications of 16 KB each without awaiting them.
  server.tool('flood', { inputSchema: { count: z.number().int() } }, async ({ count }, ctx) => {
    const note = 'n'.repeat(NOTE_SIZE);
    journal.started.add(ctx.requestId as number);
    for (let i = 1; i <= count && !ctx.signal.aborted; i++) {
      void ctx.progress(i, count, note);
      journal.emitted = i;
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    if (ctx.signal.aborted) journal.aborted.add(ctx.requestId as number);
    return { content: [{ type: 'text', text: `flooded ${count}` }] };
  });
  server.tool('quick', { inputSchema: {} }, () => ({ content: [{ type: 'text', text: 'quick' }] }));
  // Makes its reply a stream (progress), then sends a notification JSON cannot carry while the stream waits for it.
  server.tool('unsendable', { inputSchema: {} }, async (_args, ctx) => {
    journal.started.add(ctx.requestId as number);
    await ctx.progress(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    void ctx.notify('notifications/message', { level: 'info', data: { count: 1n } }).catch(() => undefined);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    journal.aborted.add(ctx.requestId as number);
    return { content: [{ type: 'text', text: 'never sent' }] };
  });
  return server;
}

let served: Served | undefined;
let journal: Journal;
let errors: unknown[];
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(options: { responseMode?: 'auto' | 'sse' | 'json' } = {}): Promise<Served> {
  journal = { started: new Set(), aborted: new Set(), emitted: 0 };
  errors = [];
  served = await serve({ server: buildServer(journal), sseKeepAlive: 0, maxBufferedBytesPerStream: MAX_BUFFERED, onError: (error) => errors.push(error), ...options });
  return served;
}

function callBody(id: number, name: string, args: Record<string, unknown>, progressToken?: string) {
  return modernBody({ id, method: 'tools/call', params: { name, arguments: args }, meta: envelope(progressToken === undefined ? {} : { progressToken }) });
}

function openCall(s: Served, body: Record<string, unknown>) {
  return openLive(s, { method: 'POST', headers: modernHeaders('tools/call', body.params as Record<string, unknown>), body, waitForHeaders: false });
}

test('progress sent before the handler first awaits makes the reply a stream: both notifications, then the result', async () => {
  const s = await start();
  const live = await openCall(s, callBody(1, 'eager', {}, 'e'));
  await live.ended;
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  const messages = live.messages() as any[];
  expect(messages.map((message) => message.params?.progress ?? message.result?.content[0].text)).toEqual([1, 2, 'eager done']);
});

test('close() before anything was sent (auto mode): one JSON -32603 error with the request id, and the handler is cancelled', async () => {
  const s = await start();
  const live = await openCall(s, callBody(2, 'wait', { progressFirst: false }));
  await waitUntil(() => journal.started.has(2), 'the handler to start');
  await s.middleware.close({ drainTimeout: 20 });
  await live.ended;
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(live.text())).toMatchObject({ id: 2, error: { code: -32603, message: expect.stringContaining('shut down') } });
  await waitUntil(() => journal.aborted.has(2), 'the handler to be cancelled');
});

test("close() before anything was sent (responseMode 'sse'): the error is the stream's one event", async () => {
  const s = await start({ responseMode: 'sse' });
  const live = await openCall(s, callBody(3, 'wait', { progressFirst: false }));
  await waitUntil(() => journal.started.has(3), 'the handler to start');
  await s.middleware.close({ drainTimeout: 20 });
  await live.ended;
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(live.messages()).toEqual([expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32603 }) })]);
  await waitUntil(() => journal.aborted.has(3), 'the handler to be cancelled');
});

test('close() mid-stream: the progress already sent, then the error as the last event', async () => {
  const s = await start();
  const live = await openCall(s, callBody(4, 'wait', { progressFirst: true }, 'w'));
  await live.waitForMessage((message) => 'method' in message);
  await s.middleware.close({ drainTimeout: 20 });
  await live.ended;
  const messages = live.messages() as any[];
  expect(messages).toHaveLength(2);
  expect(messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'w', progress: 1 } });
  expect(messages[1]).toMatchObject({ id: 4, error: { code: -32603, message: expect.stringContaining('shut down') } });
  await waitUntil(() => journal.aborted.has(4), 'the handler to be cancelled');
});

test('a client that leaves before any output cancels the handler, and the next call is served', async () => {
  const s = await start();
  const live = await openCall(s, callBody(5, 'wait', { progressFirst: false }));
  await waitUntil(() => journal.started.has(5), 'the handler to start');
  live.close();
  await waitUntil(() => journal.aborted.has(5), 'the handler to be cancelled');
  const next = await openCall(s, callBody(6, 'quick', {}));
  await next.ended;
  expect(JSON.parse(next.text())).toMatchObject({ id: 6, result: { content: [{ text: 'quick' }] } });
});

test('a reader that falls maxBufferedBytesPerStream behind gets an error event last and the handler is cancelled', async () => {
  const s = await start();
  const body = JSON.stringify(callBody(7, 'flood', { count: 2000 }, 'f'));
  let text = '';
  let response: http.IncomingMessage | undefined;
  const ended = new Promise<void>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: s.port, path: '/mcp', method: 'POST', headers: { ...modernHeaders('tools/call', { name: 'flood' }), 'Content-Length': Buffer.byteLength(body) }, agent: false },
      (res) => {
        response = res;
        res.pause(); // reads nothing until the handler has flooded
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', resolve);
        res.on('close', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  await waitUntil(() => journal.aborted.has(7) || journal.emitted === 2000, 'the flood to stop', 20_000);
  // The flood can overflow the stream before the client has even seen the response's headers (its first 50
  // notifications go out in one step): wait for them, then read.
  await waitUntil(() => response !== undefined, 'the response headers');
  response!.resume();
  await ended;
  const messages = messagesOf(parseSseFrames(text)) as any[];
  expect(messages.at(-1)).toMatchObject({ id: 7, error: { code: -32000, message: expect.stringContaining('maxBufferedBytesPerStream') } });
  expect(messages.filter((message) => 'result' in message)).toHaveLength(0);
  expect(journal.aborted.has(7)).toBe(true);
  expect(messages.length - 1).toBeLessThan(2000);
});

test('a stream that fails mid-write (a notification JSON cannot carry) is cut, onError gets why, and the handler is cancelled', async () => {
  const s = await start();
  const live = await openCall(s, callBody(8, 'unsendable', {}, 'u'));
  await live.ended;
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  // The progress went out; the stream was then destroyed: no result, no end of stream.
  expect(live.messages()).toEqual([expect.objectContaining({ method: 'notifications/progress', params: expect.objectContaining({ progressToken: 'u', progress: 1 }) })]);
  await waitUntil(() => journal.aborted.has(8), 'the handler to be cancelled');
  expect(errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/BigInt/) })]);
  // The server goes on.
  const next = await openCall(s, callBody(9, 'quick', {}));
  await next.ended;
  expect(JSON.parse(next.text())).toMatchObject({ id: 9, result: { content: [{ text: 'quick' }] } });
});

test('finished replies leave nothing running: close() does not wait out its drain time', async () => {
  const s = await start();
  for (let id = 10; id < 15; id++) {
    const live = await openCall(s, callBody(id, id % 2 ? 'eager' : 'quick', {}, id % 2 ? 'q' : undefined));
    await live.ended;
  }
  const closed = s.middleware.close({ drainTimeout: 60_000 }).then(() => 'closed');
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise((resolve) => (timer = setTimeout(() => resolve('still draining'), 2000)));
  expect(await Promise.race([closed, waited])).toBe('closed');
  clearTimeout(timer);
});
