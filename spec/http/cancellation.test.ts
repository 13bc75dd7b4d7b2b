import { McpError } from '../../lib/index.js';
import { type Harness, openPost, openSession, ping, postMessage, SESSION_ERA, sleep, sseMessages, startHarness, toolCall } from '../helpers/http-helpers.js';

describe.each(SESSION_ERA)('cancellation for a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  beforeEach(async () => {
    h = await startHarness();
    sessionId = await openSession(h, version);
  });
  afterEach(() => h.close());

  test('notifications/cancelled fires ctx.signal and no response is sent for the request', async () => {
    const post = await openPost(h, version, sessionId, toolCall('c1', 'block'));
    await h.probe.until(() => h.probe.started.has('c1'));
    const ctx = h.probe.started.get('c1')!;
    expect(ctx.signal.aborted).toBe(false);

    const cancel = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user pressed stop' } });
    expect(cancel.status).toBe(202);
    expect(cancel.text).toBe('');

    await h.probe.until(() => h.probe.aborted.has('c1'));
    expect(ctx.signal.aborted).toBe(true);
    expect(h.probe.aborted.get('c1')).toBe('user pressed stop');
    await post.ended;
    // The handler returned a result after the abort; it must not reach the client.
    expect(h.probe.returnedAfterAbort.has('c1')).toBe(true);
    expect(post.messages()).toEqual([]);
    expect(post.text()).not.toContain('should never be sent');
    // The session goes on.
    expect(sseMessages((await postMessage(h, version, sessionId, ping(2))).text)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  test('a numeric request id is cancelled too, and only that request', async () => {
    const a = await openPost(h, version, sessionId, toolCall(7, 'block'));
    const b = await openPost(h, version, sessionId, toolCall(8, 'block'));
    await h.probe.until(() => h.probe.started.has(7) && h.probe.started.has(8));
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    await a.ended;
    expect(h.probe.aborted.has(7)).toBe(true);
    await sleep(30);
    expect(h.probe.aborted.has(8)).toBe(false);
    expect(b.isEnded).toBe(false);
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
    await b.ended;
  });

  test('ids 7 and "7" at once are two requests: a cancel of the later one leaves the first running', async () => {
    const first = await openPost(h, version, sessionId, toolCall(7, 'block'));
    const second = await openPost(h, version, sessionId, toolCall('7', 'block'));
    await h.probe.until(() => h.probe.started.has(7) && h.probe.started.has('7'));
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '7' } });
    await second.ended;
    expect(h.probe.aborted.has('7')).toBe(true);
    await sleep(30);
    expect(h.probe.aborted.has(7)).toBe(false);
    expect(first.isEnded).toBe(false);
    // The first one still holds its id: a new request with it is refused, one with the freed "7" runs.
    const duplicate = sseMessages((await postMessage(h, version, sessionId, toolCall(7, 'echo', { text: 'x' }))).text);
    expect(duplicate).toEqual([expect.objectContaining({ id: 7, error: expect.objectContaining({ message: expect.stringContaining('already in use') }) })]);
    expect(sseMessages((await postMessage(h, version, sessionId, ping('7'))).text)).toEqual([{ jsonrpc: '2.0', id: '7', result: {} }]);
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    await first.ended;
    expect(h.probe.aborted.has(7)).toBe(true);
  });

  test('cancelling an unknown or finished request is accepted (202) and harmless', async () => {
    await postMessage(h, version, sessionId, ping(1));
    for (const requestId of [1, 'never-sent']) {
      const res = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
      expect(res.status).toBe(202);
    }
    const malformed = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { nested: true } } });
    expect(malformed.status).toBe(202);
    expect((await postMessage(h, version, sessionId, ping(3))).status).toBe(200);
  });

  test('a client that drops its POST connection does not cancel the request', async () => {
    const post = await openPost(h, version, sessionId, toolCall('d', 'block'));
    await h.probe.until(() => h.probe.started.has('d'));
    post.close();
    await sleep(100);
    expect(h.probe.aborted.has('d')).toBe(false);
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'd' } });
    await h.probe.until(() => h.probe.aborted.has('d'));
  });

  test('DELETE of the session aborts its in-flight handlers and ends their streams without a response', async () => {
    const first = await openPost(h, version, sessionId, toolCall('k1', 'block'));
    const second = await openPost(h, version, sessionId, toolCall('k2', 'block'));
    await h.probe.until(() => h.probe.started.has('k1') && h.probe.started.has('k2'));
    const res = await h.api().delete('/mcp').set({ 'Mcp-Session-Id': sessionId });
    expect(res.status).toBe(200);
    await h.probe.until(() => h.probe.aborted.has('k1') && h.probe.aborted.has('k2'));
    expect(h.probe.aborted.get('k1')).toBeInstanceOf(McpError);
    await first.ended;
    await second.ended;
    expect(first.messages()).toEqual([]);
    expect(second.messages()).toEqual([]);
  });
});
