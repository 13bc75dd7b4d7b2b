/**
 * Ports, in spirit, of rmcp's priming tests (shared/seeds/rmcp-1.4.0-to-1.5.0.diff.txt,
 * test_streamable_http_priming.rs): priming first with `retry: 3000`, then the response; distinct ids per
 * request; resume after completion returns only that stream's remaining events; nothing after the TTL.
 */
import { LocalSessionManager, McpServer, InMemoryEventStore } from '../../lib/index.js';
import { advanceClock, useFakeClock } from '../helpers/fake-clock.js';
import { serve, type Served } from '../helpers/serve.js';
import { RawClient, readUntil, toolCall } from '../helpers/raw-client.js';
import { parseSse, sseMessages } from '../helpers/sse.js';

function echoServer(): McpServer {
  const server = new McpServer({ name: 'priming', version: '1.0.0' });
  server.tool('echo', { description: 'Says done' }, async () => ({ content: [{ type: 'text', text: 'done' }] }));
  server.tool('close_standalone', { description: 'Closes the GET stream with retry 5000' }, async (_args, ctx) => {
    ctx.closeStandaloneSSEStream(5000);
    return { content: [{ type: 'text', text: 'closed' }] };
  });
  return server;
}

describe.each([
  ['without an EventStore', () => new LocalSessionManager({ completedStreamTtl: 200 })],
  // With a store, retention is the store's: its ttlMs plays the part of completedStreamTtl.
  ['with an InMemoryEventStore', () => new LocalSessionManager({ completedStreamTtl: 200, eventStore: new InMemoryEventStore({ ttlMs: 200 }) })],
])('priming %s', (_label, manager) => {
  let served: Served;
  beforeEach(async () => {
    useFakeClock(); // retention is measured on Date.now(): the TTL passes on the fake clock
    served = await serve({ server: echoServer(), sessionManager: manager(), sseKeepAlive: 0 });
  });
  afterEach(async () => {
    await served.close();
    jest.useRealTimers();
  });

  test('initialize starts with a priming event (id, retry 3000, empty data), then the response', async () => {
    const client = new RawClient(served.url, '2025-11-25');
    const events = parseSse(await client.initialize());
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ id: expect.any(String), retry: 3000, data: '' });
    expect(JSON.parse(events[1].data!)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(events[1].id).toBeDefined();
    expect(events[1].id).not.toBe(events[0].id);
  });

  test('every request stream is primed, and ids never repeat across requests', async () => {
    const client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
    const first = await client.call(toolCall(2, 'echo'));
    const second = await client.call(toolCall(3, 'echo'));
    for (const call of [first, second]) {
      expect(call.events[0]).toEqual({ id: expect.any(String), retry: 3000, data: '' });
      expect(call.events).toHaveLength(2);
    }
    const ids = [...first.events, ...second.events].map((event) => event.id);
    expect(new Set(ids).size).toBe(4);
    expect(sseMessages(first.body)[0].id).toBe(2);
    expect(sseMessages(second.body)[0].id).toBe(3);
  });

  test('resuming a completed stream from its priming id replays only that stream, then ends', async () => {
    const client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
    const first = await client.call(toolCall(2, 'echo'));
    await client.call(toolCall(3, 'echo'));
    const resumed = await client.get({ 'Last-Event-ID': first.events[0].id! });
    expect(resumed.status).toBe(200);
    const body = await resumed.text();
    const messages = sseMessages(body);
    expect(messages).toEqual([expect.objectContaining({ id: 2 })]);
    // Strictly after: resuming from the response's own id yields nothing more.
    const after = await client.get({ 'Last-Event-ID': first.events[1].id! });
    expect(sseMessages(await after.text())).toEqual([]);
  });

  test('after the retention time the stream is gone: 200 with an empty, closed stream', async () => {
    const client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
    const first = await client.call(toolCall(2, 'echo'));
    await advanceClock(450);
    const resumed = await client.get({ 'Last-Event-ID': first.events[0].id! });
    expect(resumed.status).toBe(200);
    expect(sseMessages(await resumed.text())).toEqual([]);
  });

  test('clients older than 2025-11-25 never get priming events', async () => {
    const client = new RawClient(served.url, '2025-06-18');
    const events = parseSse(await client.initialize());
    expect(events.every((event) => event.data !== '')).toBe(true);
    const call = await client.call(toolCall(2, 'echo'));
    expect(call.events).toHaveLength(1);
    expect(call.events[0].retry).toBeUndefined();
  });

  test('the GET stream is primed, and closing it sends a retry hint and ends the connection', async () => {
    const client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
    const get = await client.get();
    expect(get.status).toBe(200);
    const first = await readUntil(get, (text) => parseSse(text).length >= 1);
    expect(parseSse(first.text)[0]).toMatchObject({ retry: 3000, data: '' });
    const call = await client.call(toolCall(2, 'close_standalone'));
    expect(sseMessages(call.body)[0].result.content[0].text).toBe('closed');
    let rest = first.text;
    for (;;) {
      const chunk = await first.reader.read();
      if (chunk.done) break;
      rest += new TextDecoder().decode(chunk.value);
    }
    const events = parseSse(rest);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ retry: 5000 });
  });
});

test('with a store that has startEventId, the priming event takes no write: its id is the stream\'s start id', async () => {
  const stored: string[] = [];
  class CountingStore extends InMemoryEventStore {
    override async storeEvent(streamId: string, event: Parameters<InMemoryEventStore['storeEvent']>[1]): Promise<string> {
      stored.push(event.message === undefined ? 'priming' : 'message');
      return super.storeEvent(streamId, event);
    }
  }
  const store = new CountingStore();
  const served = await serve({ server: echoServer(), sessionManager: new LocalSessionManager({ eventStore: store }), sseKeepAlive: 0 });
  try {
    const client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
    stored.length = 0;
    const call = await client.call(toolCall(2, 'echo'));
    expect(stored).toEqual(['message']); // the response only
    const primingId = call.events[0].id!;
    expect(primingId).toBe(store.startEventId(store.streamIdOf(primingId)!));
    // A resume from it replays the whole stream (its response).
    const resumed = await client.get({ 'Last-Event-ID': primingId });
    expect(sseMessages(await resumed.text())).toEqual([expect.objectContaining({ id: 2 })]);
  } finally {
    await served.close();
  }
});
