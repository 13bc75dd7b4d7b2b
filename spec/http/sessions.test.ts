import { LocalSessionManager } from '../../lib/index.js';
import { advanceClock, useFakeClock } from '../helpers/fake-clock.js';
import { ACCEPT_BOTH, deferred, type Harness, initializeRequest, openGet, openPost, openSession, ping, postMessage, SESSION_ERA, sseMessages, startHarness, toolCall, UUID } from '../helpers/http-helpers.js';

const INIT_HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };

describe('initialize', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test.each(SESSION_ERA)('a %s client gets a new session: Mcp-Session-Id is a visible-ASCII UUID, the result echoes its version', async (version) => {
    const res = await h.api().post('/mcp').set(INIT_HEADERS).send(initializeRequest(version, 1));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const sessionId = res.headers['mcp-session-id'] as string;
    expect(sessionId).toMatch(/^[\x21-\x7E]+$/);
    expect(sessionId).toMatch(UUID);
    expect(sseMessages(res.text)).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: version, capabilities: expect.objectContaining({ tools: { listChanged: true } }), serverInfo: { name: 'http-spec', version: '1.0.0' } },
      },
    ]);
    // The new session answers requests.
    const pong = await postMessage(h, version, sessionId, ping(2));
    expect(pong.status).toBe(200);
    expect(sseMessages(pong.text)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  test('every initialize creates a distinct session', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await h.api().post('/mcp').set(INIT_HEADERS).send(initializeRequest('2025-11-25', i));
      ids.add(res.headers['mcp-session-id'] as string);
    }
    expect(ids.size).toBe(5);
  });

  test.each(['2024-11-05', '9999-12-31', 'latest'])('an unsupported requested version (%s) is answered with 2025-11-25, not an error', async (requested) => {
    const res = await h.api().post('/mcp').set(INIT_HEADERS).send(initializeRequest(requested, 'v'));
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toMatch(UUID);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 'v', result: expect.objectContaining({ protocolVersion: '2025-11-25' }) }]);
  });

  const good = initializeRequest('2025-11-25', 'bad').params;
  test.each([
    ['no params', undefined],
    ['no protocolVersion', { capabilities: {}, clientInfo: good.clientInfo }],
    ['a numeric protocolVersion', { ...good, protocolVersion: 20250326 }],
    ['no capabilities', { protocolVersion: '2025-11-25', clientInfo: good.clientInfo }],
    ['capabilities that are not an object', { ...good, capabilities: 'all' }],
    ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }],
    ['clientInfo without a name', { ...good, clientInfo: { version: '1' } }],
  ])('initialize with %s → 400 -32602, id echoed, no session', async (_label, params) => {
    const body: Record<string, unknown> = { jsonrpc: '2.0', id: 'bad', method: 'initialize' };
    if (params !== undefined) body.params = params;
    const res = await h.api().post('/mcp').set(INIT_HEADERS).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'bad', error: { code: -32602, message: expect.stringContaining('Invalid initialize params') } });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  test('initialize with an Mcp-Session-Id (known or not) → 400 -32600, no new session', async () => {
    const sessionId = await openSession(h, '2025-11-25');
    for (const id of [sessionId, 'made-up']) {
      const res = await h
        .api()
        .post('/mcp')
        .set({ ...INIT_HEADERS, 'Mcp-Session-Id': id })
        .send(initializeRequest('2025-11-25', 'again'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 'again', error: { code: -32600, message: expect.stringContaining('without an Mcp-Session-Id') } });
      expect(res.headers['mcp-session-id']).toBeUndefined();
    }
    // The existing session is untouched.
    expect((await postMessage(h, '2025-11-25', sessionId, ping(1))).status).toBe(200);
  });

  test('an MCP-Protocol-Version header that differs from params.protocolVersion → 400 -32600', async () => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ ...INIT_HEADERS, 'MCP-Protocol-Version': '2025-06-18' })
      .send(initializeRequest('2025-11-25', 'mm'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'mm', error: { code: -32600, message: expect.stringContaining('does not match') } });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  test('a matching MCP-Protocol-Version header on initialize is fine', async () => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ ...INIT_HEADERS, 'MCP-Protocol-Version': '2025-06-18' })
      .send(initializeRequest('2025-06-18', 'ok'));
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toMatch(UUID);
  });

  test('an unsupported MCP-Protocol-Version header on initialize → 400', async () => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ ...INIT_HEADERS, 'MCP-Protocol-Version': '2024-01-01' })
      .send(initializeRequest('2024-01-01', 'old'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'old', error: { code: -32000, message: expect.stringContaining('unsupported MCP-Protocol-Version') } });
  });
});

describe('session idle expiry (sessionIdleTimeout: 100, on a fake clock)', () => {
  let h: Harness;
  beforeEach(async () => {
    useFakeClock(); // before the manager exists: its idle sweep runs on the fake setInterval
    h = await startHarness({ sessionManager: new LocalSessionManager({ sessionIdleTimeout: 100 }) });
  });
  afterEach(async () => {
    await h.close();
    jest.useRealTimers();
  });

  /** Registers a tool that runs until the test releases it; `started` resolves when a call reaches it. */
  function heldTool() {
    const started = deferred();
    const release = deferred();
    h.server.tool('held', { description: 'Answers once released' }, async () => {
      started.resolve();
      await release.promise;
      return { content: [{ type: 'text', text: 'released' }] };
    });
    return { started: started.promise, release: () => release.resolve() };
  }

  test.each(SESSION_ERA)('a %s session left idle answers 404 on POST, GET and DELETE', async (version) => {
    const sessionId = await openSession(h, version);
    await advanceClock(250);
    const post = await postMessage(h, version, sessionId, ping(1));
    expect(post.status).toBe(404);
    expect(post.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: expect.stringContaining('Session not found') } });
    const get = await h.api().get('/mcp').set({ Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId });
    expect(get.status).toBe(404);
    const del = await h.api().delete('/mcp').set({ 'Mcp-Session-Id': sessionId });
    expect(del.status).toBe(404);
  });

  test('a session idle for just under the timeout is kept, and expires once it passes', async () => {
    const sessionId = await openSession(h, '2025-11-25');
    await advanceClock(90);
    expect((await postMessage(h, '2025-11-25', sessionId, ping(1))).status).toBe(200);
    await advanceClock(90); // 180 ms since the session was created, 90 since its last request
    expect((await postMessage(h, '2025-11-25', sessionId, ping(2))).status).toBe(200);
    await advanceClock(125);
    expect((await postMessage(h, '2025-11-25', sessionId, ping(3))).status).toBe(404);
  });

  test('a session in regular use stays alive well past the idle timeout', async () => {
    const sessionId = await openSession(h, '2025-11-25');
    for (let i = 0; i < 14; i++) {
      await advanceClock(30); // 420 ms in all, never 100 ms without a request
      const live = await openPost(h, '2025-11-25', sessionId, ping(i));
      await live.ended;
      expect(live.status).toBe(200);
    }
    expect((await postMessage(h, '2025-11-25', sessionId, ping('last'))).status).toBe(200);
  });

  test('a session with an open GET stream that receives traffic stays alive', async () => {
    const sessionId = await openSession(h, '2025-06-18');
    const get = await openGet(h, '2025-06-18', sessionId);
    expect(get.status).toBe(200);
    for (let i = 0; i < 8; i++) {
      await advanceClock(50);
      h.server.tool(`t${i}`, { description: 'churn' }, () => ({ content: [] })).remove();
      // Server events travel through the message bus (delivered after the current task, never inside the emit).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await get.waitFor((text) => text.split('list_changed').length - 1 === 16);
    expect(get.isEnded).toBe(false);
    expect(get.messages().filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toHaveLength(16);
    const res = await postMessage(h, '2025-06-18', sessionId, ping(1));
    expect(res.status).toBe(200);
    get.close();
  });

  test('when an idle session expires its open GET stream ends and the id answers 404', async () => {
    const sessionId = await openSession(h, '2025-11-25');
    const get = await openGet(h, '2025-11-25', sessionId);
    expect(get.isEnded).toBe(false);
    await advanceClock(250);
    await get.ended;
    expect((await postMessage(h, '2025-11-25', sessionId, ping(1))).status).toBe(404);
  });

  test('a session is not expired while a request is in flight', async () => {
    const held = heldTool();
    const sessionId = await openSession(h, '2025-11-25');
    const call = postMessage(h, '2025-11-25', sessionId, toolCall(1, 'held')).then((res) => res); // sent now
    await held.started;
    await advanceClock(300); // three idle timeouts with the call still running
    expect((await postMessage(h, '2025-11-25', sessionId, ping(2))).status).toBe(200);
    held.release();
    const res = await call;
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'released' }] } }]);
  });

  // A request's end counts as activity: after a request longer than sessionIdleTimeout the session must not be
  // dropped by the next sweep (every 25 ms here), since the client heard from it a moment ago.
  test('a session is not idle right after a long request finishes', async () => {
    const held = heldTool();
    const sessionId = await openSession(h, '2025-11-25');
    const call = postMessage(h, '2025-11-25', sessionId, toolCall(1, 'held')).then((res) => res); // sent now
    await held.started;
    await advanceClock(300);
    held.release();
    expect((await call).status).toBe(200);
    await advanceClock(40); // well under the 100 ms idle timeout
    const pong = await postMessage(h, '2025-11-25', sessionId, ping(2));
    expect(pong.status).toBe(200);
  });
});
