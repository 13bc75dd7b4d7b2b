/**
 * Session lifetime after the review fixes: idle expiry of a session whose only request waits on a client that
 * left (item 1), DELETE removing the stored state before dropping the session (item 5), and initialize after
 * shutdown (item 8).
 */
import { InMemorySessionStore, LocalSessionManager, type SessionState, type SessionStore } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { RawClient, toolCall } from '../helpers/raw-client.js';
import { serve } from '../helpers/serve.js';
import { ping, postWithin, reviewServer, sameSessionOn, sleep, sseMessages, type ToolLog } from './review-helpers.js';

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

describe('item 1: idle expiry and requests that wait on the client', () => {
  test('a session whose only request awaits ctx.elicit, with the client gone from that POST, expires after sessionIdleTimeout and frees its maxSessions slot', async () => {
    const log: ToolLog = { asked: [], blocked: [] };
    const served = await serve({ server: reviewServer(log), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionIdleTimeout: 150, maxSessions: 1 }) });
    try {
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

      // No traffic at all now (any request would count as activity): idle 150 ms plus a sweep period.
      await sleep(600);

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
    } finally {
      await served.close();
    }
  });

  test('a session whose client is still connected to a slow request (400 ms) is not expired by a 150 ms idle timeout', async () => {
    const served = await serve({ server: reviewServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionIdleTimeout: 150, maxSessions: 1 }) });
    try {
      const client = new RawClient(served.url);
      await client.initialize();
      const slow = await postWithin(client, toolCall(2, 'wait', { ms: 400 }));
      expect(slow.status).toBe(200);
      expect(sseMessages(slow.body).at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'waited 400' }] } });
      // Still the same session, still holding the only slot.
      const after = await postWithin(client, ping(3));
      expect(after.status).toBe(200);
      expect(sseMessages(after.body).at(-1)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
      const full = await postInitialize(served.url);
      expect(full.status).toBe(503);
      await full.text();
    } finally {
      await served.close();
    }
  });

  test('a session whose client stays connected to a request awaiting ctx.elicit is not expired either', async () => {
    const log: ToolLog = { asked: [], blocked: [] };
    const served = await serve({ server: reviewServer(log), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionIdleTimeout: 150 }) });
    try {
      const client = new RawClient(served.url);
      await client.initialize({ elicitation: {} });
      const post = await openLive(served, { method: 'POST', headers: client.headers(), body: toolCall(2, 'ask'), waitForHeaders: false });
      const elicitation = (await post.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as { id: string | number };
      await sleep(500);
      expect(log.asked).toEqual([]);
      const answered = await client.post({ jsonrpc: '2.0', id: elicitation.id, result: { action: 'accept', content: { name: 'Ada' } } });
      expect(answered.status).toBe(202);
      await answered.text();
      const response = await post.waitForMessage((message) => !('method' in message) && message.id === 2);
      expect(response).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hello Ada' }] } });
      await post.ended;
    } finally {
      await served.close();
    }
  });
});

describe('item 5: DELETE removes the stored state before dropping the session', () => {
  test('a request 30 ms into a DELETE whose store delete takes 100 ms does not revive the session, here or on another instance', async () => {
    const inner = new InMemorySessionStore();
    const deletes: string[] = [];
    const sessionStore: SessionStore = {
      load: (id: string) => inner.load(id),
      store: (id: string, state: SessionState) => inner.store(id, state),
      // Slow, and the state stays loadable until the very end, like a store whose delete is still in flight.
      delete: async (id: string) => {
        deletes.push(id);
        await sleep(100);
        await inner.delete(id);
      },
    };
    const a = await serve({ server: reviewServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    const b = await serve({ server: reviewServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    try {
      const client = new RawClient(a.url);
      await client.initialize();
      expect(await inner.load(client.sessionId!)).toBeDefined();

      const started = Date.now();
      const deletion = fetch(a.url, { method: 'DELETE', headers: client.headers() });
      await sleep(30);
      const during = await postWithin(client, ping(2));
      // Whatever it answered, it must not bring the session back.
      expect([200, 404]).toContain(during.status);
      const deleted = await deletion;
      expect(deleted.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(95);
      expect(deletes).toEqual([client.sessionId]);
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
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('item 8: initialize after shutdown', () => {
  test('after middleware.close(), initialize answers 503 with Retry-After (the HTTP server still listening)', async () => {
    const served = await serve({ server: reviewServer(), sseKeepAlive: 0 });
    try {
      const before = await postInitialize(served.url, 1);
      expect(before.status).toBe(200);
      await before.text();
      await served.middleware.close();
      const after = await postInitialize(served.url, 2);
      expect(after.status).toBe(503);
      expect(after.headers.get('retry-after')).toBe('30');
      expect(after.headers.get('mcp-session-id')).toBeNull();
      expect(await after.json()).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: expect.stringContaining('shutting down') } });
    } finally {
      await served.close();
    }
  });
});
