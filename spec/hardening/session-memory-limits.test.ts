import { z } from 'zod';
import { InMemorySessionStore, LocalSessionManager, McpServer, type LocalSessionManagerOptions } from '../../lib/index.js';
import { clientHeaders, deferred, initializeRequest, openLive, openPost, type Deferred } from '../helpers/http-helpers.js';
import { serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

const VERSION = '2025-11-25';

/** echo returns its text; hold waits until the test releases it (a request that stays in flight). */
function buildServer(holds: Array<Deferred<void>>): McpServer {
  const server = new McpServer({ name: 'limits', version: '1.0.0' });
  server.tool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool('hold', {}, async () => {
    const release = deferred<void>();
    holds.push(release);
    await release.promise;
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

let served: Served | undefined;
let holds: Array<Deferred<void>>;
afterEach(async () => {
  for (const hold of holds) hold.resolve();
  await served?.close();
  served = undefined;
});

async function start(options: LocalSessionManagerOptions = {}): Promise<Served> {
  holds = [];
  served = await serve({ server: buildServer(holds), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ onError: () => undefined, ...options }) });
  return served;
}

async function initialize(s: Served, params: Record<string, unknown> = {}): Promise<{ status: number; sessionId: string; body: string }> {
  const base = initializeRequest(VERSION, 1) as { params: Record<string, unknown> };
  const live = await openLive(s, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: { ...base, params: { ...base.params, ...params } } });
  await live.ended;
  return { status: live.status, sessionId: live.headers['mcp-session-id'] as string, body: live.text() };
}

async function call(s: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}) {
  const live = await openPost(s, VERSION, sessionId, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return live;
}

/** Replays a stream from its priming event id: everything the session still keeps of it. */
async function resume(s: Served, sessionId: string, lastEventId: string): Promise<string> {
  const live = await openLive(s, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastEventId } });
  await live.ended;
  return live.text();
}

describe('what a session keeps from initialize', () => {
  test('only the version, capabilities and client name/version/title: padding in other params is not stored', async () => {
    const sessionStore = new InMemorySessionStore();
    const s = await start({ sessionStore });
    const padding = 'p'.repeat(1024 * 1024);
    const { status, sessionId } = await initialize(s, {
      padding,
      clientInfo: { name: 'padded', version: '1.0', title: 'Padded client', icons: [{ src: padding }] },
    });
    expect(status).toBe(200);
    const stored = await sessionStore.load(sessionId);
    expect(stored).toMatchObject({ protocolVersion: VERSION, clientInfo: { name: 'padded', version: '1.0', title: 'Padded client' } });
    expect(stored!.clientInfo).toEqual({ name: 'padded', version: '1.0', title: 'Padded client' });
    expect(stored).not.toHaveProperty('initializeParams');
    expect(JSON.stringify(stored).length).toBeLessThan(1024);
  });

  test.each([
    ['capabilities', { capabilities: { experimental: { padding: 'c'.repeat(20_000) } } }],
    ['clientInfo', { clientInfo: { name: 'n'.repeat(20_000), version: '1.0' } }],
  ])('oversized %s are refused with 400 / -32602 naming maxClientMetadataBytes, and no session is made', async (_label, params) => {
    const s = await start();
    const reply = await initialize(s, params);
    expect(reply.status).toBe(400);
    const body = JSON.parse(reply.body);
    expect(body).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining('maxClientMetadataBytes') } });
    expect(reply.sessionId).toBeUndefined();
  });

  test('the limit is an option', async () => {
    const s = await start({ maxClientMetadataBytes: 100_000 });
    const reply = await initialize(s, { capabilities: { experimental: { padding: 'c'.repeat(20_000) } } });
    expect(reply.status).toBe(200);
  });
});

describe('requests in flight per session', () => {
  test('one more than maxRequestsPerSession gets -32000 naming the option; once one finishes, a new one runs', async () => {
    const s = await start({ maxRequestsPerSession: 3 });
    const { sessionId } = await initialize(s);
    const running = await Promise.all([1, 2, 3].map((id) => call(s, sessionId, id, 'hold')));
    await waitFor(() => holds.length === 3);

    const refused = await call(s, sessionId, 4, 'hold');
    const error = await refused.waitForMessage((message) => 'id' in message && message.id === 4);
    expect(error).toMatchObject({ id: 4, error: { code: -32000, message: expect.stringContaining('maxRequestsPerSession') } });
    expect(holds).toHaveLength(3); // the refused request never ran

    holds[0].resolve();
    expect(await running[0].waitForMessage((message) => 'id' in message && message.id === 1)).toMatchObject({ result: { content: [{ text: 'released' }] } });
    const next = await call(s, sessionId, 5, 'echo', { text: 'after' });
    expect(await next.waitForMessage((message) => 'id' in message && message.id === 5)).toMatchObject({ result: { content: [{ text: 'after' }] } });
    for (const live of running) live.close();
  });

  test('clients that drop their connections cannot pile up requests: the cap counts requests still running', async () => {
    const s = await start({ maxRequestsPerSession: 5 });
    const { sessionId } = await initialize(s);
    for (let id = 1; id <= 5; id++) {
      const live = await call(s, sessionId, id, 'hold');
      await waitFor(() => holds.length === id);
      live.close(); // a dropped connection does not cancel a session request
    }
    const refused = await call(s, sessionId, 6, 'hold');
    expect(await refused.waitForMessage((message) => 'id' in message && message.id === 6)).toMatchObject({ error: { code: -32000 } });
    expect(holds).toHaveLength(5);
  });
});

describe('finished streams kept for resumes are bounded in bytes', () => {
  const big = (n: number) => String(n).repeat(40_000);

  test('past maxRetainedBytesPerSession the oldest finished streams go; a resume of one is an empty 200; the newest stays', async () => {
    const s = await start({ maxRetainedBytesPerSession: 100_000 });
    const { sessionId } = await initialize(s);
    const primingIds: string[] = [];
    for (let id = 1; id <= 5; id++) {
      const live = await call(s, sessionId, id, 'echo', { text: big(id) });
      await live.ended;
      primingIds.push(live.frames()[0].id!);
      expect(live.messages()).toHaveLength(1);
    }
    // Two 40 KB results fit in 100 KB; the first three streams were dropped.
    const first = await resume(s, sessionId, primingIds[0]);
    expect(first).not.toContain(big(1).slice(0, 100));
    expect(first).not.toContain('"result"');
    const last = await resume(s, sessionId, primingIds[4]);
    expect(last).toContain(big(5));
  });

  test('a stream bigger than the whole budget is not kept at all', async () => {
    const s = await start({ maxRetainedBytesPerSession: 10_000 });
    const { sessionId } = await initialize(s);
    const live = await call(s, sessionId, 1, 'echo', { text: big(1) });
    await live.ended;
    expect(live.text()).toContain(big(1)); // delivered live in full
    expect(await resume(s, sessionId, live.frames()[0].id!)).not.toContain('"result"');
  });

  test('past maxRetainedBytes (all sessions) the session holding the most gives way first', async () => {
    const s = await start({ maxRetainedBytesPerSession: 1_000_000, maxRetainedBytes: 150_000 });
    const small = await initialize(s);
    const smallCall = await call(s, small.sessionId, 1, 'echo', { text: 'small and precious' });
    await smallCall.ended;
    const heavy = await initialize(s);
    const heavyIds: string[] = [];
    for (let id = 1; id <= 6; id++) {
      const live = await call(s, heavy.sessionId, id, 'echo', { text: big(id) });
      await live.ended;
      heavyIds.push(live.frames()[0].id!);
    }
    // The small session's stream survives the heavy one's volume; the heavy one lost its oldest streams.
    expect(await resume(s, small.sessionId, smallCall.frames()[0].id!)).toContain('small and precious');
    expect(await resume(s, heavy.sessionId, heavyIds[0])).not.toContain('"result"');
    expect(await resume(s, heavy.sessionId, heavyIds[5])).toContain(big(6));
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
