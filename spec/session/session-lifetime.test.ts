/**
 * How long a session lives: idle expiry (on a fake clock) of a session whose only request waits on a client that
 * left, and not while a client is still connected to a request; DELETE removing the stored state before dropping
 * the session, whatever arrives during it; and initialize after shutdown.
 */
import { InMemorySessionStore, LocalSessionManager, McpServer, type SessionState, type SessionStore } from '../../lib/index.js';
import { advanceClock, advanceClockUntil, useFakeClock } from '../helpers/fake-clock.js';
import { deferred, openLive } from '../helpers/http-helpers.js';
import { RawClient, readUntil, toolCall } from '../helpers/raw-client.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { fixtureServer, ping, postWithin, sameSessionOn, sseMessages, type ToolLog } from './fixtures.js';

const track = closeAfterEach();

const initializeBody = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'second', version: '1' } },
});

function postInitialize(url: string, id = 50): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initializeBody(id)),
  });
}

/** Adds a `held` tool that runs until the test releases it; `started` resolves when a call reaches it. */
function addHeldTool(server: McpServer) {
  const started = deferred();
  const release = deferred();
  server.tool('held', { description: 'Answers once released' }, async () => {
    started.resolve();
    await release.promise;
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return { started: started.promise, release: () => release.resolve() };
}

/** A session store whose deletes wait until the test releases them (the state stays loadable meanwhile). */
function heldDeleteStore(inner: SessionStore) {
  const started = deferred();
  const release = deferred();
  const deletes: string[] = [];
  const store: SessionStore = {
    load: (id: string) => inner.load(id),
    store: (id: string, state: SessionState) => inner.store(id, state),
    delete: async (id: string) => {
      deletes.push(id);
      started.resolve();
      await release.promise;
      await inner.delete(id);
    },
  };
  return { store, deletes, started: started.promise, release: () => release.resolve() };
}

describe('idle expiry and requests that wait on the client (sessionIdleTimeout: 150, on a fake clock)', () => {
  beforeEach(() => useFakeClock()); // before each manager exists: its idle sweep runs on the fake setInterval
  afterEach(() => void jest.useRealTimers());

  test('a session whose only request awaits ctx.elicit, with the client gone from that POST, expires after sessionIdleTimeout and frees its maxSessions slot', async () => {
    const log: ToolLog = { asked: [], blocked: [] };
    const sessionManager = new LocalSessionManager({ sessionIdleTimeout: 150, maxSessions: 1 });
    const served = track(await serve({ server: fixtureServer(log), sseKeepAlive: 0, sessionManager }));
    const client = new RawClient(served.url);
    await client.initialize({ elicitation: {} });
    // The only slot is taken.
    const full = await postInitialize(served.url);
    expect(full.status).toBe(503);
    await full.text();

    const post = await openLive(served, { method: 'POST', headers: client.headers(), body: toolCall(2, 'ask'), waitForHeaders: false });
    const elicitation = (await post.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as { id: string | number };
    post.close();
    await post.ended;

    // No traffic at all now (any request would count as activity): idle periods pass until the sweep drops it.
    await advanceClockUntil(() => sessionManager.size === 0, 'the session to expire', 150);

    // The handler's pending elicitation was rejected when the session ended.
    expect(log.asked).toEqual([expect.stringMatching(/^rejected: /)]);
    const gone = await postWithin(client, ping(3));
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body)).toMatchObject({ error: { code: expect.any(Number) } });
    // The late answer to the elicitation finds no session either.
    const lateAnswer = await client.post({ jsonrpc: '2.0', id: elicitation.id, result: { action: 'accept', content: { name: 'late' } } });
    expect(lateAnswer.status).toBe(404);
    await lateAnswer.text();

    // Capacity is free again.
    const fresh = await postInitialize(served.url);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('mcp-session-id')).toEqual(expect.any(String));
    expect(fresh.headers.get('mcp-session-id')).not.toBe(client.sessionId);
    expect(sseMessages(await fresh.text()).at(-1)).toMatchObject({ id: 50, result: { protocolVersion: '2025-11-25' } });
  });

  test('a session whose client is still connected to a slow request (three idle timeouts long) is not expired', async () => {
    const server = fixtureServer();
    const held = addHeldTool(server);
    const sessionManager = new LocalSessionManager({ sessionIdleTimeout: 150, maxSessions: 1 });
    const served = track(await serve({ server, sseKeepAlive: 0, sessionManager }));
    const client = new RawClient(served.url);
    await client.initialize();
    const slow = postWithin(client, toolCall(2, 'held'));
    await held.started;
    await advanceClock(450);
    expect(sessionManager.size).toBe(1);
    held.release();
    const reply = await slow;
    expect(reply.status).toBe(200);
    expect(sseMessages(reply.body).at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'released' }] } });
    // Still the same session, still holding the only slot.
    const after = await postWithin(client, ping(3));
    expect(after.status).toBe(200);
    expect(sseMessages(after.body).at(-1)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    const full = await postInitialize(served.url);
    expect(full.status).toBe(503);
    await full.text();
  });

  test('a session whose client stays connected to a request awaiting ctx.elicit is not expired either', async () => {
    const log: ToolLog = { asked: [], blocked: [] };
    const sessionManager = new LocalSessionManager({ sessionIdleTimeout: 150 });
    const served = track(await serve({ server: fixtureServer(log), sseKeepAlive: 0, sessionManager }));
    const client = new RawClient(served.url);
    await client.initialize({ elicitation: {} });
    const post = await openLive(served, { method: 'POST', headers: client.headers(), body: toolCall(2, 'ask'), waitForHeaders: false });
    const elicitation = (await post.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as { id: string | number };
    await advanceClock(500);
    expect(sessionManager.size).toBe(1);
    expect(log.asked).toEqual([]);
    const answered = await client.post({ jsonrpc: '2.0', id: elicitation.id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(answered.status).toBe(202);
    await answered.text();
    const response = await post.waitForMessage((message) => !('method' in message) && message.id === 2);
    expect(response).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hello Ada' }] } });
    await post.ended;
  });

  test('a client that leaves a batch waiting on an elicitation does not pin its session', async () => {
    const sessionManager = new LocalSessionManager({ sessionIdleTimeout: 200 });
    const served = track(await serve({ server: fixtureServer(), sessionManager, sseKeepAlive: 0 }));
    const client = new RawClient(served.url, '2025-03-26');
    await client.initialize({ elicitation: {} });
    const batch = await fetch(served.url, {
      method: 'POST',
      headers: client.headers(),
      body: JSON.stringify([toolCall(2, 'ask'), { jsonrpc: '2.0', id: 3, method: 'ping' }]),
    });
    const { reader } = await readUntil(batch, (read) => read.includes('elicitation/create'));
    await reader.cancel();
    await advanceClockUntil(() => sessionManager.size === 0, 'the session to expire', 200);
    const after = await client.post({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(after.status).toBe(404);
  });
});

describe('DELETE removes the stored state before dropping the session', () => {
  test('a request during a DELETE whose store delete is still running does not revive the session, here or on another instance', async () => {
    const inner = new InMemorySessionStore();
    const held = heldDeleteStore(inner);
    const a = track(await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore: held.store }) }));
    const b = track(await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore: held.store }) }));
    const client = new RawClient(a.url);
    await client.initialize();
    expect(await inner.load(client.sessionId!)).toBeDefined();

    let answered = false;
    const deletion = fetch(a.url, { method: 'DELETE', headers: client.headers() }).then((response) => {
      answered = true;
      return response;
    });
    await held.started;
    const during = await postWithin(client, ping(2));
    // Whatever it answered, it must not bring the session back.
    expect([200, 404]).toContain(during.status);
    // The DELETE is not answered before the store has deleted the state.
    expect(answered).toBe(false);
    held.release();
    const deleted = await deletion;
    expect(deleted.status).toBe(200);
    expect(held.deletes).toEqual([client.sessionId]);
    expect(await inner.load(client.sessionId!)).toBeUndefined();

    const onA = await postWithin(client, ping(3));
    expect(onA.status).toBe(404);
    const onB = await postWithin(sameSessionOn(b.url, client), ping(4));
    expect(onB.status).toBe(404);
    const getOnA = await client.get({}, AbortSignal.timeout(3000));
    expect(getOnA.status).toBe(404);
    await getOnA.text();
    const again = await fetch(a.url, { method: 'DELETE', headers: client.headers() });
    expect(again.status).toBe(404);
    await again.text();
  });

  test('a state change during DELETE neither survives in the store nor lets another instance revive the session', async () => {
    const inner = new InMemorySessionStore();
    const held = heldDeleteStore(inner);
    const a = track(await serve({ server: fixtureServer(), sessionManager: new LocalSessionManager({ sessionStore: held.store }) }));
    const b = track(await serve({ server: fixtureServer(), sessionManager: new LocalSessionManager({ sessionStore: inner }) }));
    const client = new RawClient(a.url);
    await client.initialize();
    const deleting = fetch(a.url, { method: 'DELETE', headers: client.headers() });
    await held.started; // the DELETE is under way: the store delete has begun
    const subscribe = await client.post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'test://static' } });
    expect(subscribe.status).toBe(404);
    held.release();
    expect((await deleting).status).toBe(200);
    expect(inner.size).toBe(0);
    const onB = await sameSessionOn(b.url, client).post({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(onB.status).toBe(404);
    expect(inner.size).toBe(0);
  });
});

describe('initialize after shutdown', () => {
  test('after middleware.close(), initialize answers 503 with Retry-After (the HTTP server still listening)', async () => {
    const served = track(await serve({ server: fixtureServer(), sseKeepAlive: 0 }));
    const before = await postInitialize(served.url, 1);
    expect(before.status).toBe(200);
    await before.text();
    await served.middleware.close();
    const after = await postInitialize(served.url, 2);
    expect(after.status).toBe(503);
    // Draining instances answer every request 503 with a short Retry-After: another instance takes it.
    expect(after.headers.get('retry-after')).toBe('1');
    expect(after.headers.get('mcp-session-id')).toBeNull();
    expect(await after.json()).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: expect.stringContaining('shutting down') } });
  });
});
