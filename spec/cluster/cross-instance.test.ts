/**
 * Any instance serves any request (issue 9): three instances share a bus, a session store, an event store and
 * stream leases, and a client sends each request to whichever instance it likes, with no affinity.
 */
import type { JsonRpcMessage } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';
import { MortalLeases, sharedStores, startInstance, type Instance, type Journal } from './fixture.js';

const VERSION = '2025-11-25';
let instances: Instance[];
let journal: Journal;
const open: LiveResponse[] = [];

beforeEach(async () => {
  journal = { aborted: [], ran: [] };
  const shared = sharedStores();
  instances = [await startInstance('A', shared, journal), await startInstance('B', shared, journal), await startInstance('C', shared, journal)];
});
afterEach(async () => {
  for (const live of open.splice(0)) live.close();
  for (const instance of instances) await instance.close();
});

async function initialize(on: Instance, capabilities: Record<string, unknown> = {}): Promise<string> {
  const live = await openLive(on, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0, capabilities) });
  await live.ended;
  const sessionId = live.headers['mcp-session-id'] as string;
  await post(on, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return sessionId;
}

async function post(on: Instance, sessionId: string, body: unknown): Promise<LiveResponse> {
  const live = await openLive(on, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body, waitForHeaders: false });
  open.push(live);
  return live;
}

const isResponseTo = (id: string | number) => (message: JsonRpcMessage) => 'id' in message && message.id === id && !('method' in message);
const progressOf = (live: LiveResponse) =>
  live.messages().flatMap((message) => ('method' in message && message.method === 'notifications/progress' ? [(message.params as { progress: number }).progress] : []));

test('an elicitation sent by a tool running on A is answered through B; the result arrives on A', async () => {
  const [a, b] = instances;
  const sessionId = await initialize(a, { elicitation: {} });
  const call = await post(a, sessionId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } });
  const request = (await call.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as { id: string };
  // B never saw this session: it restores it from the store, has no such request waiting, and passes it on.
  const answer = await post(b, sessionId, { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } });
  await answer.ended;
  expect(answer.status).toBe(202);
  expect(await call.waitForMessage(isResponseTo(1))).toMatchObject({ result: { content: [{ text: 'hello Ada from A' }] } });
});

test('notifications/cancelled sent to C cancels the request running on A', async () => {
  const [a, , c] = instances;
  const sessionId = await initialize(a);
  await post(a, sessionId, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'hold', arguments: {} } });
  await waitUntil(() => journal.ran.includes('hold@A'));
  const cancel = await post(c, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'changed my mind' } });
  await cancel.ended;
  await waitUntil(() => journal.aborted.includes('hold@A'));
});

test('a list_changed emitted on A reaches the GET stream the client holds on B', async () => {
  const [a, b] = instances;
  const sessionId = await initialize(instances[2]);
  const get = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream' } });
  open.push(get);
  await get.ready;
  a.server.tool('added_on_a', {}, () => ({ content: [] }));
  expect(await get.waitForMessage((message) => 'method' in message && message.method === 'notifications/tools/list_changed')).toBeDefined();
});

test('a resume on B of a stream still running on A replays what is stored, then follows it live to the end, none twice', async () => {
  const [a, b] = instances;
  const sessionId = await initialize(a);
  const call = await post(a, sessionId, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow_count', arguments: { n: 12, intervalMs: 30 }, _meta: { progressToken: 't' } } });
  await call.waitFor(() => progressOf(call).length >= 3);
  call.close();
  const lastId = [...call.frames()].reverse().find((frame) => frame.id !== undefined)!.id!;
  const before = progressOf(call);

  const resumed = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  open.push(resumed);
  await resumed.ended;
  expect([...before, ...progressOf(resumed)]).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  expect(resumed.messages().at(-1)).toMatchObject({ id: 7, result: { content: [{ text: 'counted 12' }] } });
  expect(journal.ran).toEqual(['slow_count@A']);
});

test('DELETE on C ends the session everywhere: 404 on every instance, and the handler running on A is aborted', async () => {
  const [a, b, c] = instances;
  const sessionId = await initialize(a);
  // Each instance holds a copy of the session.
  for (const instance of [b, c]) {
    const ping = await post(instance, sessionId, { jsonrpc: '2.0', id: `ping-${instance.name}`, method: 'ping' });
    await ping.ended;
    expect(ping.status).toBe(200);
  }
  await post(a, sessionId, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hold', arguments: {} } });
  await waitUntil(() => journal.ran.includes('hold@A'));
  const deleted = await openLive(c, { method: 'DELETE', headers: clientHeaders(VERSION, sessionId) });
  await deleted.ended;
  expect(deleted.status).toBe(200);
  await waitUntil(() => journal.aborted.includes('hold@A'));
  for (const instance of instances) {
    const after = await post(instance, sessionId, { jsonrpc: '2.0', id: 'after', method: 'ping' });
    await after.ended;
    expect([instance.name, after.status]).toEqual([instance.name, 404]);
  }
});

test('a resume of a stream whose instance was lost ends with the lost-request error, stored once for every later resume', async () => {
  const shared = sharedStores();
  const mortal = new MortalLeases(shared.leases);
  const lost = await startInstance('lost', shared, journal, mortal, 200);
  const other = await startInstance('other', shared, journal, shared.leases, 200);
  instances.push(lost, other);
  const sessionId = await initialize(lost);
  const call = await post(lost, sessionId, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'slow_count', arguments: { n: 1000, intervalMs: 20 }, _meta: { progressToken: 'p' } } });
  await call.waitFor(() => progressOf(call).length >= 2);
  const lastId = [...call.frames()].reverse().find((frame) => frame.id !== undefined)!.id!;
  call.close();
  // The instance dies: its leases are no longer renewed (its handler keeps running here, but nobody hears it).
  mortal.die();
  const resumed = await openLive(other, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  open.push(resumed);
  await resumed.ended;
  const ending = resumed.messages().at(-1);
  expect(ending).toMatchObject({ id: 11, error: { code: -32603, message: expect.stringContaining('instance') } });
  // A later resume from the same id sees the same ending, with the same event id. (The "lost" handler still runs in
  // this process and keeps storing progress, which a dead instance would not: the replay may carry some after the
  // ending, so the ending is looked for, not taken as the last event.)
  const again = await openLive(other, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  open.push(again);
  await again.ended;
  const endingFrame = again.frames().find((frame) => frame.data?.includes('"error"'));
  expect(endingFrame && JSON.parse(endingFrame.data!)).toEqual(ending);
  expect(endingFrame!.id).toBe(resumed.frames().at(-1)!.id);
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a subscription or log level set through A holds on the copies B and C already had', async () => {
  const [a, b, c] = instances;
  const sessionId = await initialize(a);
  // B and C restore copies of the session before it changes.
  for (const instance of [b, c]) {
    const ping = await post(instance, sessionId, { jsonrpc: '2.0', id: `p-${instance.name}`, method: 'ping' });
    await ping.ended;
  }
  const get = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream' } });
  open.push(get);
  await get.ready;
  for (const body of [
    { jsonrpc: '2.0', id: 's1', method: 'resources/subscribe', params: { uri: 'test://doc' } },
    { jsonrpc: '2.0', id: 's2', method: 'logging/setLevel', params: { level: 'error' } },
  ]) {
    const reply = await post(a, sessionId, body);
    await reply.ended;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The update is emitted on C; B's copy now has the subscription, so its GET stream carries it.
  c.server.notifyResourceUpdated('test://doc');
  expect(await get.waitForMessage((message) => 'method' in message && message.method === 'notifications/resources/updated')).toMatchObject({ params: { uri: 'test://doc' } });
  // A call served by C logs at the level set through A: an info message is not sent.
  const call = await post(c, sessionId, { jsonrpc: '2.0', id: 'log', method: 'tools/call', params: { name: 'log_info', arguments: {} } });
  await call.ended;
  expect(call.messages().filter((message) => 'method' in message && message.method === 'notifications/message')).toEqual([]);
  expect(call.messages().at(-1)).toMatchObject({ id: 'log', result: { content: [{ text: 'logged' }] } });
});
