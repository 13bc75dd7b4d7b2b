/** Replays never cross streams or sessions, and a resume while the request runs loses and doubles nothing. */
import { InMemoryEventStore, LocalSessionManager, McpServer } from '../../lib/index.js';
import { serve, type Served } from '../helpers/serve.js';
import { RawClient, readUntil, toolCall } from '../helpers/raw-client.js';
import { parseSse, sseMessages } from '../helpers/sse.js';

function ticker(): McpServer {
  const server = new McpServer({ name: 'ticker', version: '1.0.0' });
  server.tool('echo', { description: 'Says done' }, async () => ({ content: [{ type: 'text', text: 'done' }] }));
  server.tool('ticks', { description: 'Five progress ticks, 60 ms apart' }, async (_args, ctx) => {
    for (let tick = 1; tick <= 5; tick++) {
      ctx.progress(tick, 5);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    return { content: [{ type: 'text', text: 'ticked' }] };
  });
  return server;
}

describe.each([
  ['without an EventStore', () => new LocalSessionManager()],
  ['with an InMemoryEventStore', () => new LocalSessionManager({ eventStore: new InMemoryEventStore() })],
])('%s', (_label, manager) => {
  let served: Served;
  beforeEach(async () => {
    served = await serve({ server: ticker(), sessionManager: manager(), sseKeepAlive: 0 });
  });
  afterEach(() => served.close());

  test('a resume replays its own stream only, never another stream of the session', async () => {
    const client = new RawClient(served.url);
    await client.initialize();
    const first = await client.call(toolCall(2, 'echo'));
    const second = await client.call(toolCall(3, 'echo'));
    const fromFirst = sseMessages(await (await client.get({ 'Last-Event-ID': first.events[0].id! })).text());
    const fromSecond = sseMessages(await (await client.get({ 'Last-Event-ID': second.events[0].id! })).text());
    expect(fromFirst.map((message) => message.id)).toEqual([2]);
    expect(fromSecond.map((message) => message.id)).toEqual([3]);
  });

  test("another session's event id replays nothing (200, empty, closed)", async () => {
    const alice = new RawClient(served.url);
    const mallory = new RawClient(served.url);
    await alice.initialize();
    await mallory.initialize();
    const secret = await alice.call(toolCall(2, 'echo'));
    const stolen = await mallory.get({ 'Last-Event-ID': secret.events[0].id! });
    expect(stolen.status).toBe(200);
    expect(await stolen.text()).not.toContain('done');
  });

  test('unknown and malformed event ids get 200 with an empty, closed stream', async () => {
    const client = new RawClient(served.url);
    await client.initialize();
    for (const id of ['999/1', 'nonsense', '1/99999', `${client.sessionId}/7#3`, '']) {
      const response = await client.get(id === '' ? {} : { 'Last-Event-ID': id });
      expect(response.status).toBe(200);
      if (id !== '') expect(sseMessages(await response.text())).toEqual([]);
      else await response.body?.cancel();
    }
  });

  test('a resume while the request runs delivers what was sent during the disconnect, in order, once', async () => {
    const client = new RawClient(served.url);
    await client.initialize();
    const post = await client.post(toolCall(2, 'ticks', {}, { progressToken: 'p' }));
    const { text, reader } = await readUntil(post, (read) => sseMessages(read).some((message) => message.params?.progress === 1));
    const lastSeen = parseSse(text).filter((event) => event.data?.includes('"progress":1'))[0].id!;
    await reader.cancel(); // the client drops the connection; the request goes on
    await new Promise((resolve) => setTimeout(resolve, 130)); // ticks 2-3 happen while disconnected
    const resumed = await client.get({ 'Last-Event-ID': lastSeen });
    expect(resumed.status).toBe(200);
    const messages = sseMessages(await resumed.text());
    const progress = messages.filter((message) => message.method === 'notifications/progress').map((message) => message.params.progress);
    expect(progress).toEqual([2, 3, 4, 5]);
    expect(messages[messages.length - 1]).toMatchObject({ id: 2, result: { content: [{ text: 'ticked' }] } });
  });
});

describe('InMemoryEventStore on a fake clock', () => {
  beforeEach(() => jest.useFakeTimers()); // the store reads Date.now(): its TTL passes on the fake clock
  afterEach(() => jest.useRealTimers());

  test('keeps at most maxEventsPerStream events per stream and expires old streams', async () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3, ttlMs: 50 });
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await store.storeEvent('s/1', { message: { jsonrpc: '2.0', method: `m${n}` } }));
    const replay = async (id: string) => {
      const methods: string[] = [];
      for await (const stored of store.replayEventsAfter(id)) methods.push((stored.event.message as { method: string }).method);
      return methods;
    };
    expect(await replay(ids[6])).toEqual(['m7', 'm8', 'm9']);
    expect(await replay(ids[1])).toEqual([]); // evicted: nothing rather than a gap
    jest.advanceTimersByTime(80);
    expect(await replay(ids[7])).toEqual([]);
    await store.storeEvent('s/2', { message: { jsonrpc: '2.0', method: 'x' } });
    expect(store.streamCount).toBe(1);
  });
});

test('LocalSessionManager keeps exactly the last maxRetainedStreams finished streams per session', async () => {
  const served = await serve({ server: ticker(), sessionManager: new LocalSessionManager({ maxRetainedStreams: 3 }), sseKeepAlive: 0 });
  try {
    const client = new RawClient(served.url);
    await client.initialize();
    const calls = [];
    for (let id = 2; id < 8; id++) calls.push(await client.call(toolCall(id, 'echo')));
    // Resuming each finished call from its first event: the three newest replay their response, no older one does.
    const replayed = [];
    for (const call of calls) replayed.push(sseMessages(await (await client.get({ 'Last-Event-ID': call.events[0].id! })).text()).map((message) => message.id));
    expect(replayed).toEqual([[], [], [], [5], [6], [7]]);
  } finally {
    await served.close();
  }
});
