/**
 * Persisted stateless replies (NeverSessionManager with an EventStore) wait only briefly for the first message:
 * when a handler is slow, the SSE headers and the priming event (an id to resume from, and a retry) go out at
 * once instead of with the final response. Errors that come first still answer JSON with their status.
 */
import { InMemoryEventStore, McpError, McpServer, NeverSessionManager } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders, modern, resultOf, sleep } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { parseSse } from '../helpers/sse.js';

function slowServer(): McpServer {
  const server = new McpServer({ name: 'persisted-priming', version: '1.0.0' });
  server.tool('wait_1s', { description: 'Answers after a second' }, async () => {
    await sleep(1000);
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  server.tool('fail_late', { description: 'Fails with -32602 after 300 ms' }, async () => {
    await sleep(300);
    throw new McpError(-32602, 'failed late');
  });
  server.tool('fail_now', { description: 'Fails with -32602 at once' }, async () => {
    throw new McpError(-32602, 'failed now');
  });
  return server;
}

let s: Served;
beforeEach(async () => {
  s = await serve({ server: slowServer(), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore() }) });
});
afterEach(() => s.close());

const call = (id: string, name: string) => {
  const params = { name, arguments: {} };
  return { headers: modernHeaders('tools/call', params), body: modernBody({ id, method: 'tools/call', params }) };
};

test('a slow tool: the priming event arrives long before the response', async () => {
  const { headers, body } = call('slow', 'wait_1s');
  const started = Date.now();
  const live = await openLive(s, { method: 'POST', headers, body, waitForHeaders: false });
  await live.waitFor((text) => parseSse(text).some((frame) => frame.id !== undefined && frame.retry !== undefined), 600);
  const primedAfter = Date.now() - started;
  expect(primedAfter).toBeLessThan(400);
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  const priming = parseSse(live.text())[0];
  expect(priming).toMatchObject({ id: expect.any(String), retry: expect.any(Number) });
  expect(priming.data ?? '').toBe('');
  expect(live.messages()).toEqual([]);

  const response = (await live.waitForMessage((message) => !('method' in message), 3000)) as any;
  expect(response).toMatchObject({ id: 'slow', result: { resultType: 'complete', content: [{ type: 'text', text: 'waited' }] } });
  await live.ended;
});

test('the priming id resumes the stream while the slow tool runs', async () => {
  const { headers, body } = call('resumed', 'wait_1s');
  const live = await openLive(s, { method: 'POST', headers, body, waitForHeaders: false });
  await live.waitFor((text) => parseSse(text).some((frame) => frame.id !== undefined), 600);
  const primingId = parseSse(live.text())[0].id!;
  live.close();
  const resumed = await openLive(s, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Last-Event-ID': primingId } });
  const response = (await resumed.waitForMessage((message) => !('method' in message), 3000)) as any;
  expect(response).toMatchObject({ id: 'resumed', result: { content: [{ type: 'text', text: 'waited' }] } });
});

test('an error that comes first is still JSON with its 2026-07-28 status', async () => {
  const reply = await modern(s.port, { id: 'now', method: 'tools/call', params: { name: 'fail_now', arguments: {} } });
  expect(reply.status).toBe(400);
  expect(reply.sse).toBe(false);
  expect(reply.json).toMatchObject({ id: 'now', error: { code: -32602, message: 'failed now' } });
});

test('an error after the hold goes out on the stream that already started', async () => {
  const reply = await modern(s.port, { id: 'late', method: 'tools/call', params: { name: 'fail_late', arguments: {} } });
  expect(reply.status).toBe(200);
  expect(reply.sse).toBe(true);
  expect(parseSse(reply.text)[0].id).toEqual(expect.any(String));
  expect(reply.final).toMatchObject({ id: 'late', error: { code: -32602, message: 'failed late' } });
});

test('a quick success is unchanged: priming, then the response, on one stream', async () => {
  const reply = await modern(s.port, { id: 'quick', method: 'tools/list' });
  expect(reply.sse).toBe(true);
  expect(parseSse(reply.text)[0]).toMatchObject({ id: expect.any(String), retry: expect.any(Number) });
  expect(resultOf(reply).tools.length).toBe(3);
});
