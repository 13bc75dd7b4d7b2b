/**
 * Resumes across copies of a session: every copy (instance) mints local event ids and server→client request ids
 * with its own incarnation, so an id of one copy never replays another copy's stream of the same index; and a
 * resume replaying from a slow EventStore ends once the session is DELETEd.
 */
import { z } from 'zod';
import { InMemoryEventStore, InMemorySessionStore, LocalSessionManager, type EventStore } from '../../lib/index.js';
import { openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { RawClient, toolCall } from '../helpers/raw-client.js';
import { countOpenResponses, serve } from '../helpers/serve.js';
import { waitUntil } from '../helpers/wire.js';
import {
  eventIds,
  LOCAL_EVENT_ID,
  parseLocalId,
  parseSse,
  postWithin,
  resumeWithin,
  fixtureServer,
  sameSessionOn,
  SlowReplayStore,
  sseMessages,
  type ToolLog,
} from './fixtures.js';

/** Waits for the first `elicitation/create` on a live POST and returns its id. */
async function elicitationId(post: LiveResponse): Promise<unknown> {
  const request = (await post.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as { id: unknown };
  return request.id;
}

describe('per-copy incarnations in local event ids and outgoing request ids', () => {
  test('an event id minted on instance A, resumed on instance B after a restore, yields an empty closed stream, never B\'s events of the same stream index', async () => {
    const sessionStore = new InMemorySessionStore();
    const a = await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    const b = await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    try {
      const client = new RawClient(a.url);
      const initBody = await client.initialize();
      const initIds = eventIds(initBody);
      const callA = await postWithin(client, toolCall(2, 'echo', { text: 'from-a' }));
      const callIdsA = eventIds(callA.body);
      // Priming event + response on each stream, all in the `<incarnation>.<index>/<seq>` format.
      expect(initIds).toHaveLength(2);
      expect(callIdsA).toHaveLength(2);
      for (const id of [...initIds, ...callIdsA]) expect(id).toMatch(LOCAL_EVENT_ID);
      const incarnationA = parseLocalId(initIds[0]).incarnation;
      expect(initIds.map(parseLocalId)).toEqual([
        { incarnation: incarnationA, index: 1, seq: 0 },
        { incarnation: incarnationA, index: 1, seq: 1 },
      ]);
      expect(callIdsA.map(parseLocalId)).toEqual([
        { incarnation: incarnationA, index: 2, seq: 0 },
        { incarnation: incarnationA, index: 2, seq: 1 },
      ]);

      // B restores the session and serves two requests: its streams 1 and 2, the same indexes as A's.
      const onB = sameSessionOn(b.url, client);
      const b1 = await postWithin(onB, toolCall(3, 'echo', { text: 'b-one' }));
      const b2 = await postWithin(onB, toolCall(4, 'echo', { text: 'b-two' }));
      expect(b1.status).toBe(200);
      expect(b2.status).toBe(200);
      const b1Ids = eventIds(b1.body).map(parseLocalId);
      const b2Ids = eventIds(b2.body).map(parseLocalId);
      const incarnationB = b1Ids[0].incarnation;
      expect(incarnationB).not.toBe(incarnationA);
      expect(b1Ids.map(({ index, seq }) => [index, seq])).toEqual([[1, 0], [1, 1]]);
      expect(b2Ids).toEqual([
        { incarnation: incarnationB, index: 2, seq: 0 },
        { incarnation: incarnationB, index: 2, seq: 1 },
      ]);

      // A's ids on B: empty, finished 200 streams.
      for (const id of [initIds[0], callIdsA[0], initIds[1]]) {
        const replay = await resumeWithin(onB, id);
        expect({ id, status: replay.status, messages: sseMessages(replay.body) }).toEqual({ id, status: 200, messages: [] });
        expect(replay.body).not.toContain('b-one');
        expect(replay.body).not.toContain('b-two');
      }
      // Control: B's own id of the same index does replay B's stream.
      const own = await resumeWithin(onB, eventIds(b2.body)[0]);
      expect(own.status).toBe(200);
      expect(sseMessages(own.body)).toEqual([{ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'b-two' }] } }]);
      // And A still replays its own.
      const onA = await resumeWithin(client, callIdsA[0]);
      expect(sseMessages(onA.body)).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'from-a' }] } }]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('server→client request ids are strings `<incarnation>-<n>`, with the incarnation of the copy that sends them', async () => {
    const sessionStore = new InMemorySessionStore();
    const log: ToolLog = { asked: [], blocked: [] };
    const a = await serve({ server: fixtureServer(log), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    const b = await serve({ server: fixtureServer(log), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore }) });
    try {
      const client = new RawClient(a.url);
      const incarnationA = parseLocalId(eventIds(await client.initialize({ elicitation: {} }))[0]).incarnation;
      const onB = sameSessionOn(b.url, client);

      const ids: unknown[] = [];
      for (const [target, url, requestId] of [[client, a, 2], [client, a, 3], [onB, b, 4]] as const) {
        const post = await openLive(url, { method: 'POST', headers: target.headers(), body: toolCall(requestId, 'ask'), waitForHeaders: false });
        const id = await elicitationId(post);
        ids.push(id);
        const answered = await target.post({ jsonrpc: '2.0', id, result: { action: 'accept', content: { name: `n${requestId}` } } });
        expect(answered.status).toBe(202);
        await answered.text();
        expect(await post.waitForMessage((message) => !('method' in message) && message.id === requestId)).toMatchObject({ result: { content: [{ text: `hello n${requestId}` }] } });
        await post.ended;
      }
      expect(ids).toEqual([`${incarnationA}-1`, `${incarnationA}-2`, expect.stringMatching(/^[0-9a-f]{8}-1$/)]);
      const incarnationB = (ids[2] as string).slice(0, 8);
      expect(incarnationB).not.toBe(incarnationA);
      expect(log.asked).toEqual(['answered: n2', 'answered: n3', 'answered: n4']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('a resume replaying from a slow EventStore when the session is deleted', () => {
  async function setUp() {
    const eventStore = new SlowReplayStore(200);
    const log: ToolLog = { asked: [], blocked: [] };
    let responses!: { readonly open: number };
    const served = await serve({ server: fixtureServer(log), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore }) }, (app) => {
      responses = countOpenResponses(app);
    });
    const client = new RawClient(served.url);
    await client.initialize();
    /** Resolves once the server has seen every response close (the client's disconnect included). */
    const serverSawDisconnect = () => waitUntil(() => responses.open === 0, 'the server to see the client leave');
    return { eventStore, log, served, client, serverSawDisconnect };
  }

  async function resumeThenDelete(served: Awaited<ReturnType<typeof setUp>>['served'], client: RawClient, eventStore: SlowReplayStore, lastEventId: string) {
    // The replay waits 200 ms, and in any case until the DELETE has been answered.
    let release!: () => void;
    eventStore.hold = new Promise<void>((resolve) => (release = resolve));
    const resumed = await openLive(served, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': client.sessionId!, 'MCP-Protocol-Version': client.protocolVersion, 'Last-Event-ID': lastEventId } });
    expect(resumed.status).toBe(200);
    const deleted = await fetch(served.url, { method: 'DELETE', headers: client.headers() });
    const deletedAt = Date.now();
    expect(deleted.status).toBe(200);
    // The DELETE came while the replay was still waiting on the store.
    expect(eventStore.replayed).toEqual([]);
    release();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      resumed.ended.then(() => 'ended'),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still open after 2 s'), 2000))),
    ]).finally(() => clearTimeout(timer));
    expect(outcome).toBe('ended');
    expect(eventStore.replayed).toHaveLength(1);
    expect(eventStore.replayed[0]).toBeGreaterThanOrEqual(deletedAt - 5);
    resumed.close();
    return resumed;
  }

  test('a resume of the standalone GET stream ends once the session is DELETEd', async () => {
    const { eventStore, served, client, serverSawDisconnect } = await setUp();
    try {
      const first = await openLive(served, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': client.sessionId!, 'MCP-Protocol-Version': client.protocolVersion } });
      await first.waitFor(() => first.frames().some((frame) => frame.id !== undefined));
      const primingId = first.frames()[0].id!;
      // The standalone stream (index 0) of this session.
      expect(eventStore.streamIdOf(primingId)).toMatch(new RegExp(`^${client.sessionId}/([0-9a-f]{8}\\.)?0$`));
      first.close();
      await first.ended;
      await serverSawDisconnect(); // no live GET any more
      await resumeThenDelete(served, client, eventStore, primingId);
    } finally {
      await served.close();
    }
  });

  test('a resume of an in-flight request stream ends once the session is DELETEd', async () => {
    const { eventStore, log, served, client, serverSawDisconnect } = await setUp();
    try {
      const post = await openLive(served, { method: 'POST', headers: client.headers(), body: toolCall(2, 'block'), waitForHeaders: false });
      await post.waitFor(() => post.frames().some((frame) => frame.id !== undefined));
      const primingId = post.frames()[0].id!;
      expect(log.blocked).toHaveLength(1);
      post.close();
      await post.ended;
      await serverSawDisconnect();
      await resumeThenDelete(served, client, eventStore, primingId);
      expect(log.blocked[0].signal.aborted).toBe(true);
    } finally {
      await served.close();
    }
  });
});
