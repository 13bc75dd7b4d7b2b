/**
 * `responseMode` shapes 2026-07-28 replies: `auto` answers JSON unless a progress/log notification comes first
 * (then SSE), `sse` always streams a success, `json` always answers one JSON body (notifications dropped).
 * Errors that come first are JSON with their HTTP status in every mode. A client disconnect cancels the request
 * (2026-07-28 transports: closing the stream is cancellation), aborting the handler's `ctx.signal`.
 */
import { openLive } from '../helpers/http-helpers.js';
import { callTool, envelope, META_LOG_LEVEL, modern, modernBody, modernHeaders, resultOf, startModern, waitUntil, type ModernHarness, type Reply } from '../helpers/modern.js';

const withProgress = (token: string | number = 'p-1') => ({ meta: envelope({ progressToken: token }) });

function expectJsonResult(reply: Reply): any {
  expect(reply.status).toBe(200);
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.sse).toBe(false);
  return resultOf(reply);
}

function expectSse(reply: Reply): any[] {
  expect(reply.status).toBe(200);
  expect(reply.contentType).toMatch(/^text\/event-stream/);
  expect(reply.headers['x-accel-buffering']).toBe('no');
  return reply.messages;
}

function progressOf(messages: any[]): number[] {
  return messages.filter((message) => message.method === 'notifications/progress').map((message) => message.params.progress);
}

describe("responseMode 'auto' (default)", () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern();
  });
  afterAll(() => h.close());

  test('a plain tool call answers one JSON body', async () => {
    const result = expectJsonResult(await callTool(h.port, 'echo', { text: 'hi' }));
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] });
  });

  test('a tool that sends progress first streams SSE: progress with the token, then the result', async () => {
    const reply = await callTool(h.port, 'progress_tool', {}, { id: 11, ...withProgress('progress-test-1') });
    const messages = expectSse(reply);
    expect(progressOf(messages)).toEqual([0, 50, 100]);
    for (const message of messages.slice(0, -1)) expect(message.params.progressToken).toBe('progress-test-1');
    expect(messages.at(-1)).toMatchObject({ id: 11, result: { resultType: 'complete' } });
    // One JSON message per data: line.
    for (const line of reply.text.split('\n').filter((l) => l.startsWith('data:'))) expect(() => JSON.parse(line.slice(5))).not.toThrow();
  });

  test('the same tool without a progress token answers JSON (no notification was sent)', async () => {
    expectJsonResult(await callTool(h.port, 'progress_tool'));
  });

  test('list results are JSON', async () => {
    expectJsonResult(await modern(h.port, { method: 'tools/list' }));
  });

  test('progress then an error: the stream has started, so the error is its last event', async () => {
    const reply = await callTool(h.port, 'progress_then_fail', {}, { id: 12, ...withProgress() });
    const messages = expectSse(reply);
    expect(progressOf(messages)).toEqual([1]);
    expect(messages.at(-1)).toMatchObject({ id: 12, error: { code: -32602 } });
  });

  test('an error that comes first is JSON with its status', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 13 });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.json).toMatchObject({ id: 13, error: { code: -32021 } });
  });
});

describe("responseMode 'sse'", () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern({ responseMode: 'sse' });
  });
  afterAll(() => h.close());

  test('a plain tool call is streamed', async () => {
    const messages = expectSse(await callTool(h.port, 'echo', { text: 'hi' }, { id: 21 }));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 21, result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] } }]);
  });

  test('list and discover results are streamed', async () => {
    for (const method of ['tools/list', 'server/discover']) {
      const messages = expectSse(await modern(h.port, { method }));
      expect(messages).toHaveLength(1);
      expect(messages[0].result.resultType).toBe('complete');
    }
  });

  test('progress then result', async () => {
    const messages = expectSse(await callTool(h.port, 'progress_tool', {}, withProgress()));
    expect(progressOf(messages)).toEqual([0, 50, 100]);
    expect(messages.at(-1).result.resultType).toBe('complete');
  });

  test('an input_required result is streamed like any success', async () => {
    const messages = expectSse(await callTool(h.port, 'greet', {}, { meta: envelope({}, { elicitation: {} }) }));
    expect(messages.at(-1).result.resultType).toBe('input_required');
  });

  test.each([
    ['a handler error (-32021)', () => callTool(h.port, 'needs_sampling', {}, { id: 22 }), 400, -32021, 22],
    ['a removed method (-32601)', () => modern(h.port, { id: 23, method: 'ping' }), 404, -32601, 23],
    ['missing _meta (-32602)', () => modern(h.port, { id: 24, method: 'tools/list', meta: null }), 400, -32602, 24],
    ['a header mismatch (-32020)', () => modern(h.port, { id: 25, method: 'tools/list', headers: { 'Mcp-Method': 'x' } }), 400, -32020, 25],
    ['an unknown resource (-32602)', () => modern(h.port, { id: 26, method: 'resources/read', params: { uri: 'test://nope' } }), 400, -32602, 26],
  ] as const)('%s is still JSON with its status', async (_label, send, status, code, id) => {
    const reply = await send();
    expect(reply.status).toBe(status);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.json).toMatchObject({ id, error: { code } });
  });
});

describe("responseMode 'json'", () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern({ responseMode: 'json' });
  });
  afterAll(() => h.close());

  test('a tool that sends progress still answers one JSON body; the notifications are dropped', async () => {
    const reply = await callTool(h.port, 'progress_tool', {}, { id: 31, ...withProgress() });
    expect(expectJsonResult(reply)).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'progressed' }] });
    expect(reply.json.id).toBe(31);
    expect(reply.text).not.toContain('notifications/progress');
  });

  test('logs are dropped too', async () => {
    const reply = await callTool(h.port, 'log_tool', {}, { meta: envelope({ [META_LOG_LEVEL]: 'debug' }) });
    expectJsonResult(reply);
    expect(reply.text).not.toContain('notifications/message');
  });

  test('progress then an error: the error is JSON with its status', async () => {
    const reply = await callTool(h.port, 'progress_then_fail', {}, { id: 32, ...withProgress() });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.json).toMatchObject({ id: 32, error: { code: -32602, data: { reason: 'test' } } });
  });

  test('a removed method is 404 JSON', async () => {
    const reply = await modern(h.port, { id: 33, method: 'logging/setLevel', params: { level: 'info' } });
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ id: 33, error: { code: -32601 } });
  });
});

test('an invalid responseMode is refused at start-up', async () => {
  await expect(startModern({ responseMode: 'xml' as never })).rejects.toThrow(/responseMode/);
});

describe('a client disconnect cancels the request', () => {
  test.each(['auto', 'sse', 'json'] as const)("mode %s, nothing sent yet: ctx.signal fires", async (responseMode) => {
    const h = await startModern({ responseMode });
    try {
      const body = modernBody({ id: 41, method: 'tools/call', params: { name: 'slow', arguments: {} } });
      const live = await openLive(h, { method: 'POST', headers: modernHeaders('tools/call', body.params as Record<string, unknown>), body, waitForHeaders: false });
      await waitUntil(() => h.recorder.slow.has(41), 'the slow handler to start');
      expect(h.recorder.slow.get(41)).toEqual({ aborted: false, finished: false });
      live.close();
      await waitUntil(() => h.recorder.slow.get(41)!.finished, 'the slow handler to see its signal');
      expect(h.recorder.slow.get(41)!.aborted).toBe(true);
    } finally {
      await h.close();
    }
  });

  test('mid-stream (after a progress event): ctx.signal fires', async () => {
    const h = await startModern();
    try {
      const body = modernBody({ id: 42, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 'slow-1' } } });
      const live = await openLive(h, { method: 'POST', headers: modernHeaders('tools/call', body.params as Record<string, unknown>), body });
      expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
      await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/progress');
      expect(h.recorder.slow.get(42)).toEqual({ aborted: false, finished: false });
      live.close();
      await waitUntil(() => h.recorder.slow.get(42)!.finished, 'the slow handler to see its signal');
      expect(h.recorder.slow.get(42)!.aborted).toBe(true);
    } finally {
      await h.close();
    }
  });

  test('a request that completes normally never aborts its signal', async () => {
    const h = await startModern();
    try {
      let seen: AbortSignal | undefined;
      h.server.tool('capture', { description: 'Captures its signal' }, (_args, ctx) => {
        seen = ctx.signal;
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      expectJsonResult(await callTool(h.port, 'capture'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen?.aborted).toBe(false);
    } finally {
      await h.close();
    }
  });
});
