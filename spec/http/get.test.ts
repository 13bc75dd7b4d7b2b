import { clientHeaders, type Harness, type LiveResponse, openGet, openSession, parseSse, ping, postMessage, SESSION_ERA, sleep, startHarness } from '../helpers/http-helpers.js';

const LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
const listChangedCount = (live: LiveResponse) => live.messages().filter((m) => 'method' in m && m.method === LIST_CHANGED.method).length;

describe.each(SESSION_ERA)('GET as a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  const open: LiveResponse[] = [];
  beforeEach(async () => {
    h = await startHarness();
    sessionId = await openSession(h, version);
  });
  afterEach(async () => {
    for (const live of open.splice(0)) live.close();
    await h.close();
  });
  const get = async (extra?: Record<string, string>) => {
    const live = await openGet(h, version, sessionId, extra);
    open.push(live);
    return live;
  };

  test('opens the standalone SSE stream with its headers flushed at once', async () => {
    // openGet resolves when the status line and headers arrive; before 2025-11-25 no event exists to send with them
    // (the body stays empty below), so they were flushed on their own.
    const live = await get();
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toBe('text/event-stream');
    expect(live.headers['cache-control']).toBe('no-cache, no-transform');
    expect(live.headers['x-accel-buffering']).toBe('no');
    expect(live.headers['content-length']).toBeUndefined();
    await sleep(50);
    expect(live.isEnded).toBe(false);
    if (version >= '2025-11-25') {
      expect(live.frames()).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{8}\.0\//), retry: 3000, data: '', comments: [] }]);
    } else {
      expect(live.text()).toBe('');
    }
  });

  test('receives tools/list_changed when a tool is added, disabled, enabled and removed at runtime', async () => {
    const live = await get();
    const tool = h.server.tool('late', { description: 'added at runtime' }, () => ({ content: [] }));
    await live.waitFor(() => listChangedCount(live) === 1);
    tool.disable();
    tool.enable();
    tool.remove();
    await live.waitFor(() => listChangedCount(live) === 4);
    expect(live.messages()).toEqual([LIST_CHANGED, LIST_CHANGED, LIST_CHANGED, LIST_CHANGED]);
    expect(live.frames().filter((f) => f.data).every((f) => f.event === 'message')).toBe(true);
  });

  test('Accept without text/event-stream → 406', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const req = h.api().get('/mcp').set({ 'Mcp-Session-Id': sessionId });
      if (accept) req.set('Accept', accept);
      else req.unset('Accept');
      const res = await req;
      expect(res.status).toBe(406);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('text/event-stream') } });
    }
  });

  test('without Mcp-Session-Id → 400', async () => {
    const res = await h.api().get('/mcp').set({ Accept: 'text/event-stream' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Mcp-Session-Id header is required') } });
  });

  test('an unknown session → 404 (-32001)', async () => {
    const res = await h.api().get('/mcp').set({ Accept: 'text/event-stream', 'Mcp-Session-Id': 'b8c1f5a4-1111-4111-8111-111111111111' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: expect.stringContaining('Session not found') } });
  });

  test('an unsupported MCP-Protocol-Version → 400', async () => {
    const res = await h.api().get('/mcp').set({ Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2020-01-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32000);
  });

  test('a second concurrent GET gets 200 (a shadow stream), not 409; each notification goes to one stream only', async () => {
    const first = await get();
    const second = await get();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers['content-type']).toBe('text/event-stream');
    h.server.tool('x', {}, () => ({ content: [] }));
    await first.waitFor(() => listChangedCount(first) === 1);
    await sleep(50);
    expect(listChangedCount(second)).toBe(0);
    expect(second.isEnded).toBe(false);
  });

  test('after the client drops its GET, a new GET takes over the stream', async () => {
    const first = await get();
    first.close();
    await first.ended;
    await sleep(20);
    const second = await get();
    h.server.tool('y', {}, () => ({ content: [] }));
    await second.waitFor(() => listChangedCount(second) === 1);
    expect(second.messages()).toEqual([LIST_CHANGED]);
  });

  test('the GET stream stays open while the session is used, and ends when the server shuts down', async () => {
    const live = await get();
    const res = await postMessage(h, version, sessionId, ping(1));
    expect(res.status).toBe(200);
    await sleep(30);
    expect(live.isEnded).toBe(false);
    expect(live.messages()).toEqual([]);
    await h.middleware.close();
    await live.ended;
    expect(parseSse(live.text()).filter((f) => f.data)).toEqual([]);
    // clientHeaders is also valid for a GET; after close() this instance answers nothing but 503 (retry elsewhere).
    const after = await h.api().get('/mcp').set({ ...clientHeaders(version, sessionId), Accept: 'text/event-stream' });
    expect(after.status).toBe(503);
    expect(after.headers['retry-after']).toBe('1');
  });
});
