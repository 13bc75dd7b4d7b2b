/**
 * Persisted stateless replies (NeverSessionManager with an EventStore) wait only briefly for the first message:
 * when a handler is slow, the SSE headers and the priming event (an id to resume from, and a retry) go out at
 * once instead of with the final response. Errors that come first still answer JSON with their status.
 */
import { InMemoryEventStore, McpError, McpServer, NeverSessionManager } from '../../lib/index.js';
import { deferred, openLive, type Deferred } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders, modern, resultOf } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { parseSse } from '../helpers/sse.js';

/** Tools that wait until the test releases them, so "slow" means "still running", whatever the machine's speed. */
function slowServer(release: Promise<void>): McpServer {
  const server = new McpServer({ name: 'persisted-priming', version: '1.0.0' });
  server.tool('wait_for_release', { description: 'Answers once released' }, async () => {
    await release;
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  server.tool('fail_late', { description: 'Fails with -32602 once released' }, async () => {
    await release;
    throw new McpError(-32602, 'failed late');
  });
  server.tool('fail_now', { description: 'Fails with -32602 at once' }, async () => {
    throw new McpError(-32602, 'failed now');
  });
  return server;
}

let s: Served;
let release: Deferred<void>;
beforeEach(async () => {
  release = deferred();
  s = await serve({ server: slowServer(release.promise), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore() }) });
});
afterEach(async () => {
  release.resolve();
  await s.close();
});

const call = (id: string, name: string) => {
  const params = { name, arguments: {} };
  return { headers: modernHeaders('tools/call', params), body: modernBody({ id, method: 'tools/call', params }) };
};

const primed = (text: string) => parseSse(text).some((frame) => frame.id !== undefined && frame.retry !== undefined);

test('a slow tool: the priming event arrives while the tool still runs, before the response', async () => {
  const { headers, body } = call('slow', 'wait_for_release');
  const live = await openLive(s, { method: 'POST', headers, body, waitForHeaders: false });
  await live.waitFor(primed, 5000);
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  const priming = parseSse(live.text())[0];
  expect(priming).toMatchObject({ id: expect.any(String), retry: expect.any(Number) });
  expect(priming.data ?? '').toBe('');
  expect(live.messages()).toEqual([]);

  release.resolve();
  const response = (await live.waitForMessage((message) => !('method' in message), 3000)) as any;
  expect(response).toMatchObject({ id: 'slow', result: { resultType: 'complete', content: [{ type: 'text', text: 'waited' }] } });
  await live.ended;
});

test('the priming id resumes the stream while the slow tool runs', async () => {
  const { headers, body } = call('resumed', 'wait_for_release');
  const live = await openLive(s, { method: 'POST', headers, body, waitForHeaders: false });
  await live.waitFor((text) => parseSse(text).some((frame) => frame.id !== undefined), 5000);
  const primingId = parseSse(live.text())[0].id!;
  live.close();
  const resumed = await openLive(s, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Last-Event-ID': primingId } });
  release.resolve();
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
  const { headers, body } = call('late', 'fail_late');
  const live = await openLive(s, { method: 'POST', headers, body, waitForHeaders: false });
  await live.waitFor(primed, 5000); // the stream started: the hold is over
  release.resolve();
  const error = await live.waitForMessage((message) => !('method' in message), 3000);
  await live.ended;
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(parseSse(live.text())[0].id).toEqual(expect.any(String));
  expect(error).toMatchObject({ id: 'late', error: { code: -32602, message: 'failed late' } });
});

test('a quick success is unchanged: priming, then the response, on one stream', async () => {
  const reply = await modern(s.port, { id: 'quick', method: 'tools/list' });
  expect(reply.sse).toBe(true);
  expect(parseSse(reply.text)[0]).toMatchObject({ id: expect.any(String), retry: expect.any(Number) });
  expect(resultOf(reply).tools.length).toBe(3);
});
