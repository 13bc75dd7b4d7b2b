/**
 * Graceful drain: `close({ drainTimeout })` answers new requests of both eras 503 with Retry-After, lets running
 * handlers finish, hands resumable streams to other instances, and ends what is still running with an error.
 */
import { z } from 'zod';
import { InMemoryEventStore, LocalSessionManager, McpServer } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { callTool } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';
import { sharedStores, startInstance, type Journal } from './fixture.js';

const VERSION = '2025-11-25';
const open: LiveResponse[] = [];
const servers: Served[] = [];
afterEach(async () => {
  for (const live of open.splice(0)) live.close();
  for (const served of servers.splice(0)) await served.close();
});

function countingServer(): McpServer {
  const server = new McpServer({ name: 'drain', version: '1.0.0' });
  server.tool('slow_count', { inputSchema: { n: z.number().int(), intervalMs: z.number().int() } }, async ({ n, intervalMs }, ctx) => {
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      ctx.signal.throwIfAborted();
      await ctx.progress(i, n);
    }
    return { content: [{ type: 'text', text: `counted ${n}` }] };
  });
  return server;
}

async function initialize(served: Served): Promise<string> {
  const live = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
  await live.ended;
  return live.headers['mcp-session-id'] as string;
}

async function call(served: Served, sessionId: string, id: number, n: number, intervalMs: number): Promise<LiveResponse> {
  const live = await openLive(served, {
    method: 'POST',
    headers: clientHeaders(VERSION, sessionId),
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_count', arguments: { n, intervalMs }, _meta: { progressToken: 'p' } } },
    waitForHeaders: false,
  });
  open.push(live);
  return live;
}

test('after close() starts, new requests of both eras get 503 with Retry-After, and the running call still finishes', async () => {
  const served = await serve({ server: countingServer(), sseKeepAlive: 0 });
  servers.push(served);
  const sessionId = await initialize(served);
  const running = await call(served, sessionId, 1, 5, 40);
  await running.waitFor((text) => text.includes('notifications/progress'));
  const closed = served.middleware.close({ drainTimeout: 5000 });

  const sessionEra = await openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
  await sessionEra.ended;
  expect(sessionEra.status).toBe(503);
  expect(sessionEra.headers['retry-after']).toBe('1');
  expect(JSON.parse(sessionEra.text())).toMatchObject({ id: 2, error: { code: -32000 } });
  const modern = await callTool(served.port, 'slow_count', { n: 1, intervalMs: 1 }, { id: 3 });
  expect(modern.status).toBe(503);
  expect(modern.json).toMatchObject({ id: 3, error: { code: -32000 } });

  await running.ended;
  expect(running.messages().at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'counted 5' }] } });
  await closed;
});

test('without an EventStore, a call still running when the drain time is up ends with an error response, not silence', async () => {
  const served = await serve({ server: countingServer(), sseKeepAlive: 0 });
  servers.push(served);
  const sessionId = await initialize(served);
  const running = await call(served, sessionId, 4, 1000, 20);
  await running.waitFor((text) => text.includes('notifications/progress'));
  await served.middleware.close({ drainTimeout: 100 });
  await running.ended;
  expect(running.messages().at(-1)).toMatchObject({ id: 4, error: { code: -32603, message: expect.stringContaining('shut down') } });
});

test('a stateless 2026-07-28 call still running when the drain time is up ends with an error response', async () => {
  const served = await serve({ server: countingServer(), sseKeepAlive: 0, responseMode: 'json' });
  servers.push(served);
  const pending = callTool(served.port, 'slow_count', { n: 1000, intervalMs: 20 }, { id: 5 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await served.middleware.close({ drainTimeout: 50 });
  const reply = await pending;
  expect(reply.json).toMatchObject({ id: 5, error: { code: -32603, message: expect.stringContaining('shut down') } });
});

test('with a shared EventStore, the client is handed to another instance: it resumes there and gets every event and the result, once', async () => {
  const journal: Journal = { aborted: [], ran: [] };
  const shared = sharedStores();
  const draining = await startInstance('draining', shared, journal);
  const other = await startInstance('other', shared, journal);
  servers.push(draining, other);
  const sessionId = await initialize(draining);
  const running = await call(draining, sessionId, 6, 15, 30);
  await running.waitFor((text) => (text.match(/notifications\/progress/g) ?? []).length >= 2);
  const closed = draining.middleware.close({ drainTimeout: 5000 });
  // The connection ends with a bare retry hint; the client resumes on another instance from the last id it got.
  await running.ended;
  expect(running.text()).toMatch(/\nretry: \d+\n\n$/);
  const lastId = [...running.frames()].reverse().find((frame) => frame.id !== undefined)!.id!;
  const resumed = await openLive(other, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  open.push(resumed);
  await resumed.ended;
  const progress = [...running.messages(), ...resumed.messages()].flatMap((message) => ('method' in message ? [(message.params as { progress: number }).progress] : []));
  expect(progress).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  expect(resumed.messages().at(-1)).toMatchObject({ id: 6, result: { content: [{ text: 'counted 15' }] } });
  await closed;
});

test('close() is idempotent: a second call waits for the same drain', async () => {
  const served = await serve({ server: countingServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore: new InMemoryEventStore() }) });
  servers.push(served);
  const first = served.middleware.close({ drainTimeout: 10 });
  const second = served.middleware.close();
  expect(second).toBe(first);
  await first;
});
