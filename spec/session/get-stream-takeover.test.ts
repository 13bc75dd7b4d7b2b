/**
 * Who owns a session's standalone GET stream: a resume on another instance after a failover follows that instance
 * live; a resume that waits behind a live connection is a keep-alive-only shadow until that connection leaves,
 * then takes over with what it missed.
 */
import { z } from 'zod';
import { InMemoryEventStore, InMemorySessionStore, LocalSessionManager, type EventStore } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { RawClient, readUntil } from '../helpers/raw-client.js';
import { closeAfterEach, countOpenResponses, serve } from '../helpers/serve.js';
import { waitUntil } from '../helpers/wire.js';
import { parseSse, sseMessages } from '../helpers/sse.js';
import { fixtureServer, sameSessionOn, sleep } from './fixtures.js';

const track = closeAfterEach();

describe('failover', () => {
  test('after a failover, resuming the GET stream on another instance follows that instance live', async () => {
    const sessionStore = new InMemorySessionStore();
    const serverB = fixtureServer();
    const a = track(await serve({ server: fixtureServer(), sessionManager: new LocalSessionManager({ sessionStore }), sseKeepAlive: 0 }));
    const b = track(await serve({ server: serverB, sessionManager: new LocalSessionManager({ sessionStore }), sseKeepAlive: 0 }));
    const client = new RawClient(a.url);
    await client.initialize();
    const get = await client.get();
    const { text, reader } = await readUntil(get, (read) => parseSse(read).length >= 1);
    const primingId = parseSse(text)[0].id!;
    await reader.cancel();
    const resumed = await sameSessionOn(b.url, client).get({ 'Last-Event-ID': primingId });
    expect(resumed.status).toBe(200);
    const live = readUntil(resumed, (read) => read.includes('notifications/tools/list_changed'));
    await sleep(50);
    serverB.notifyToolsListChanged();
    const received = await live;
    expect(sseMessages(received.text).map((message) => message.method)).toContain('notifications/tools/list_changed');
    await received.reader.cancel();
  });
});

describe('a resume of the standalone stream while another GET holds it', () => {
  test('a GET resume that waited behind a live connection takes over when it leaves, with what it missed', async () => {
    const server = fixtureServer();
    let responses!: { readonly open: number };
    const served = track(await serve({ server, sseKeepAlive: 0 }, (app) => (responses = countOpenResponses(app))));
    const client = new RawClient(served.url);
    await client.initialize();
    const first = await client.get();
    const opened = await readUntil(first, (read) => parseSse(read).length >= 1);
    const primingId = parseSse(opened.text)[0].id!;
    server.notifyToolsListChanged(); // delivered to the first connection only
    await readUntil(first, (read) => read.includes('list_changed'), 2000).catch(() => undefined);
    const second = await client.get({ 'Last-Event-ID': primingId });
    const waiting = readUntil(second, (read) => sseMessages(read).length >= 2, 3000);
    await waitUntil(() => responses.open === 2, 'both GETs to be open on the server');
    await opened.reader.cancel(); // the first connection goes away
    await waitUntil(() => responses.open === 1, 'the server to see the first GET leave');
    server.notifyToolsListChanged();
    const taken = await waiting;
    // The event it missed (sent while it waited) and the later one.
    expect(sseMessages(taken.text).filter((message) => message.method === 'notifications/tools/list_changed')).toHaveLength(2);
    await taken.reader.cancel();
  });

  test.each([
    ['no EventStore', () => undefined],
    ['an InMemoryEventStore', () => new InMemoryEventStore()],
  ] as Array<[string, () => EventStore | undefined]>)('with %s: the resuming GET is a keep-alive-only shadow; the live GET keeps the notifications', async (_label, makeStore) => {
    const server = fixtureServer();
    const served = await serve({ server, sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore: makeStore() }) });
    try {
      const client = new RawClient(served.url);
      await client.initialize();
      const getHeaders = { Accept: 'text/event-stream', 'Mcp-Session-Id': client.sessionId!, 'MCP-Protocol-Version': client.protocolVersion };
      const live = await openLive(served, { method: 'GET', headers: getHeaders });
      expect(live.status).toBe(200);
      await live.waitFor(() => live.frames().some((frame) => frame.id !== undefined));
      const primingId = live.frames()[0].id!;

      const resuming = await openLive(served, { method: 'GET', headers: { ...getHeaders, 'Last-Event-ID': primingId } });
      expect(resuming.status).toBe(200);
      await sleep(100);
      expect(live.isEnded).toBe(false);
      expect(resuming.isEnded).toBe(false);

      server.tool('added_later', { description: 'Registered at runtime', inputSchema: { x: z.string().optional() } }, () => ({ content: [] }));
      expect(await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/tools/list_changed')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
      await sleep(100);
      expect(resuming.messages()).toEqual([]);
      expect(resuming.isEnded).toBe(false);
      expect(live.isEnded).toBe(false);

      // A second change still reaches the live GET: the resume never took the stream over.
      server.notifyToolsListChanged();
      await live.waitFor(() => live.messages().length === 2);
      await sleep(50);
      expect(resuming.messages()).toEqual([]);
      live.close();
      resuming.close();
    } finally {
      await served.close();
    }
  });
});
