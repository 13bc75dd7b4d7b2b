import { type Harness, isResponseTo, openGet, openPost, openSession, parseSse, ping, postMessage, SESSION_ERA, sleep, startHarness, toolCall } from '../helpers/http-helpers.js';

const comments = (text: string) => parseSse(text).filter((frame) => frame.comments.length > 0 && frame.data === undefined);

describe.each(SESSION_ERA)('SSE keep-alive (sseKeepAlive: 50) for a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness({ sseKeepAlive: 50 });
    sessionId = await openSession(h, version);
  });
  afterAll(() => h.close());

  test('a silent POST stream gets `:` comments after ~50 ms, before the response', async () => {
    const startedAt = Date.now();
    const live = await openPost(h, version, sessionId, toolCall(1, 'wait', { ms: 300 }));
    await live.waitFor((text) => text.includes(':\n\n'));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
    await live.ended;
    const text = live.text();
    expect(comments(text).length).toBeGreaterThanOrEqual(2);
    expect(comments(text).every((frame) => frame.comments.every((c) => c === ''))).toBe(true);
    expect(text.indexOf(':\n\n')).toBeLessThan(text.indexOf('"result"'));
    expect(live.messages()).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'waited 300' }] } }]);
  });

  test('a quick request gets no keep-alive', async () => {
    const res = await postMessage(h, version, sessionId, ping(2));
    expect(res.status).toBe(200);
    expect(comments(res.text)).toEqual([]);
  });

  test('a silent GET stream gets `:` comments', async () => {
    const live = await openGet(h, version, sessionId);
    await live.waitFor((text) => comments(text).length >= 2, 2000);
    expect(live.messages()).toEqual([]);
    live.close();
  });

  test('comments stop when the stream ends (no writes after end)', async () => {
    const live = await openPost(h, version, sessionId, toolCall(3, 'wait', { ms: 120 }));
    await live.waitForMessage(isResponseTo(3));
    await live.ended;
    const atEnd = live.text();
    await sleep(150);
    expect(live.text()).toBe(atEnd);
  });
});

describe('SSE keep-alive off (sseKeepAlive: 0)', () => {
  test('no comments on a silent stream', async () => {
    const h = await startHarness({ sseKeepAlive: 0 });
    try {
      const sessionId = await openSession(h, '2025-06-18');
      const live = await openPost(h, '2025-06-18', sessionId, toolCall(1, 'wait', { ms: 200 }));
      await live.ended;
      expect(comments(live.text())).toEqual([]);
      expect(live.messages()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
