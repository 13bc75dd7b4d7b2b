import { clientHeaders, type Harness, openGet, openSession, ping, postMessage, SESSION_ERA, startHarness } from '../helpers/http-helpers.js';

describe.each(SESSION_ERA)('DELETE as a %s client', (version) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test('ends the session (200); afterwards the id answers 404 on POST, GET and DELETE', async () => {
    const sessionId = await openSession(h, version);
    const res = await h.api().delete('/mcp').set(clientHeaders(version, sessionId));
    expect(res.status).toBe(200);
    expect(res.text).toBe('');

    const post = await postMessage(h, version, sessionId, ping(1));
    expect(post.status).toBe(404);
    expect(post.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: expect.stringContaining('Session not found') } });
    const notification = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(404);
    const get = await h.api().get('/mcp').set({ Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId });
    expect(get.status).toBe(404);
    expect(get.body.error.code).toBe(-32001);
    const again = await h.api().delete('/mcp').set({ 'Mcp-Session-Id': sessionId });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: expect.stringContaining('Session not found') } });
  });

  test('without Mcp-Session-Id → 400', async () => {
    const res = await h.api().delete('/mcp');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Mcp-Session-Id header is required') } });
  });

  test('an unknown session → 404', async () => {
    const res = await h.api().delete('/mcp').set({ 'Mcp-Session-Id': 'not-a-session' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(-32001);
  });

  test('ends the session’s open GET stream and leaves other sessions alone', async () => {
    const doomed = await openSession(h, version);
    const other = await openSession(h, version);
    const live = await openGet(h, version, doomed);
    const otherLive = await openGet(h, version, other);
    expect((await h.api().delete('/mcp').set({ 'Mcp-Session-Id': doomed })).status).toBe(200);
    await live.ended;
    expect(otherLive.isEnded).toBe(false);
    expect((await postMessage(h, version, other, ping(1))).status).toBe(200);
    otherLive.close();
  });
});
