/**
 * A shared InMemoryEventStore is bounded in streams and bytes, and eviction is fair: the owner (session, or
 * stateless principal) holding the most gives way first, so one client's volume cannot empty another's replay.
 */
import { InMemoryEventStore, LocalSessionManager, McpServer } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive, openPost } from '../helpers/http-helpers.js';
import { serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

async function replay(store: InMemoryEventStore, lastEventId: string): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const stored of store.replayEventsAfter(lastEventId)) events.push(stored.event.message);
  return events;
}

const message = (text: string) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: text } });

describe('InMemoryEventStore eviction', () => {
  test('10,000 streams of one session do not evict another session’s streams (maxStreams)', async () => {
    const store = new InMemoryEventStore({ maxStreams: 100 });
    const victimFirst = await store.storeEvent('victim/a.1', { retry: 1000 });
    await store.storeEvent('victim/a.1', { message: message('kept') });
    for (let i = 0; i < 10_000; i++) await store.storeEvent(`attacker/a.${i}`, { message: message('ping') });
    expect(await replay(store, victimFirst)).toEqual([message('kept')]);
    expect(store.streamCount).toBeLessThanOrEqual(100);
  });

  test('one owner’s bytes do not evict another’s events (maxBytes); the writer loses its own oldest streams', async () => {
    const store = new InMemoryEventStore({ maxBytes: 200_000 });
    const victimFirst = await store.storeEvent('victim/a.1', { retry: 1000 });
    await store.storeEvent('victim/a.1', { message: message('kept') });
    const attackerPriming: string[] = [];
    for (let i = 0; i < 50; i++) {
      attackerPriming.push(await store.storeEvent(`attacker/a.${i}`, { retry: 1000 }));
      await store.storeEvent(`attacker/a.${i}`, { message: message(`${i}:${'x'.repeat(20_000)}`) });
    }
    expect(await replay(store, victimFirst)).toEqual([message('kept')]);
    expect(store.byteCount).toBeLessThanOrEqual(200_000);
    // The attacker's newest stream replays; its oldest are gone (a resume of them yields nothing).
    expect(await replay(store, attackerPriming[49])).toHaveLength(1);
    expect(await replay(store, attackerPriming[0])).toEqual([]);
  });

  test('a single stream over maxBytes keeps its newest events, never a gap in the middle', async () => {
    const store = new InMemoryEventStore({ maxBytes: 50_000 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await store.storeEvent('only/a.1', { message: message(`${i}:${'y'.repeat(10_000)}`) }));
    const tail = await replay(store, ids[16]);
    expect(tail.map((event) => (event as ReturnType<typeof message>).params.data.split(':')[0])).toEqual(['17', '18', '19']);
    // An id whose successors were dropped replays nothing rather than a stream with a hole.
    expect(await replay(store, ids[0])).toEqual([]);
    expect(store.byteCount).toBeLessThanOrEqual(50_000);
  });

  test('stateless streams are grouped by principal tag', async () => {
    const store = new InMemoryEventStore({ maxStreams: 10 });
    const keep = await store.storeEvent('stateless:aaaaaaaaaaaaaaaa:11111111-1111-1111-1111-111111111111', { message: message('alice') });
    await store.storeEvent('stateless:aaaaaaaaaaaaaaaa:11111111-1111-1111-1111-111111111111', { message: message('alice 2') });
    for (let i = 0; i < 100; i++) await store.storeEvent(`stateless:bbbbbbbbbbbbbbbb:${String(i).padStart(8, '0')}-0000-0000-0000-000000000000`, { message: message('bob') });
    expect(await replay(store, keep)).toEqual([message('alice 2')]);
  });
});

describe('through the middleware: sessions sharing one store', () => {
  let served: Served;
  afterEach(() => served.close());

  test('a session sending many pings keeps another session’s resumable events', async () => {
    const server = new McpServer({ name: 'fair', version: '1.0.0' });
    server.tool('hello', {}, () => ({ content: [{ type: 'text', text: 'precious result' }] }));
    const eventStore = new InMemoryEventStore({ maxStreams: 50 });
    served = await serve({ server, sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore, onError: () => undefined }) });
    const initialize = async () => {
      const live = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest('2025-11-25', 1) });
      await live.ended;
      return live.headers['mcp-session-id'] as string;
    };
    const victim = await initialize();
    const call = await openPost(served, '2025-11-25', victim, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hello', arguments: {} } });
    await call.ended;
    const primingId = call.frames()[0].id!;

    const attacker = await initialize();
    for (let id = 1; id <= 200; id++) {
      const ping = await openPost(served, '2025-11-25', attacker, { jsonrpc: '2.0', id, method: 'ping' });
      await ping.ended;
    }
    const resumed = await openLive(served, { method: 'GET', headers: { ...clientHeaders('2025-11-25', victim), Accept: 'text/event-stream', 'Last-Event-ID': primingId } });
    await resumed.ended;
    expect(resumed.messages()).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'precious result' }] } }]);
  });
});
