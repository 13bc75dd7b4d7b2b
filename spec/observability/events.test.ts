/**
 * `onEvent`: request start/end (method, tool, era, session, duration, outcome) in both eras, session lifecycle
 * (created, restored, expired, closed by DELETE, by another instance's DELETE, by shutdown), resumed streams and
 * Host/Origin refusals; a hook that throws goes to `onError`; server faults that used to be logged nowhere (a tool
 * result breaking its outputSchema, an unserialisable 2026 result) reach `onError`.
 */
import request from 'supertest';
import { z } from 'zod';
import { InMemoryMessageBus, InMemorySessionStore, LocalSessionManager, McpServer, type McpEvent, type McpMiddlewareOptions, type RequestEndEvent } from '../../lib/index.js';
import { clientHeaders, deferred, initializeRequest, sseMessages, toolCall } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders, waitUntil } from '../helpers/modern.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

const track = closeAfterEach();
const VERSION = '2025-11-25';

function buildServer() {
  const server = new McpServer({ name: 'observed', version: '1.0.0' });
  server.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('liar', { outputSchema: { n: z.number() } }, () => ({ content: [], structuredContent: { n: 'not a number' } as unknown as { n: number } }));
  server.tool('huge', {}, () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { big: 10n } as unknown as Record<string, unknown> }));
  const release = deferred();
  const started = deferred();
  server.tool('wait', {}, async (_args, ctx) => {
    started.resolve();
    await Promise.race([release.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return { server, release, started };
}

async function observed(options: Partial<McpMiddlewareOptions> = {}) {
  const events: McpEvent[] = [];
  const errors: unknown[] = [];
  const { server, started } = buildServer();
  const served = track(await serve({ server, onEvent: (event) => events.push(event), onError: (error) => errors.push(error), ...options }));
  return { served, events, errors, started };
}

async function initialize(url: string): Promise<string> {
  const res = await request(url).post('').set(clientHeaders(VERSION)).send(initializeRequest(VERSION, 'init'));
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

const ends = (events: McpEvent[]) => events.filter((event): event is RequestEndEvent => event.type === 'request.end');

describe('requests in a session', () => {
  test('initialize and tools/call: start and end with method, tool, session, version, duration and outcome', async () => {
    const { served, events } = await observed();
    const sessionId = await initialize(served.url);
    const call = await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(7, 'add', { a: 2, b: 3 }));
    expect(sseMessages(call.text).at(-1)).toMatchObject({ id: 7, result: { content: [{ text: '5' }] } });
    expect(events.map((event) => event.type)).toEqual(['request.start', 'session.created', 'request.end', 'request.start', 'request.end']);
    expect(events[0]).toEqual({ type: 'request.start', era: 'session', method: 'initialize', requestId: 'init', protocolVersion: VERSION });
    expect(events[2]).toEqual({ type: 'request.end', era: 'session', method: 'initialize', requestId: 'init', sessionId, protocolVersion: VERSION, outcome: 'ok', durationMs: expect.any(Number) });
    expect(events[3]).toEqual({ type: 'request.start', era: 'session', method: 'tools/call', toolName: 'add', requestId: 7, sessionId, protocolVersion: VERSION });
    expect(events[4]).toEqual({ ...events[3], type: 'request.end', outcome: 'ok', durationMs: expect.any(Number) });
    expect((events[4] as RequestEndEvent).durationMs).toBeGreaterThanOrEqual(0);
  });

  test('an error response ends with its code; an unknown tool name is not reported', async () => {
    const { served, events } = await observed();
    const sessionId = await initialize(served.url);
    await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(8, 'no-such-tool'));
    await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send({ jsonrpc: '2.0', id: 9, method: 'no/such-method' });
    const [, unknownTool, unknownMethod] = ends(events);
    expect(unknownTool).toMatchObject({ method: 'tools/call', outcome: 'error', errorCode: -32602 });
    expect(unknownTool.toolName).toBeUndefined();
    expect(unknownMethod).toMatchObject({ method: 'no/such-method', outcome: 'error', errorCode: -32601 });
  });

  test('a request for an unknown session ends with -32001', async () => {
    const { served, events } = await observed();
    const res = await request(served.url).post('').set(clientHeaders(VERSION, 'f'.repeat(36))).send(toolCall(1, 'add', { a: 1, b: 1 }));
    expect(res.status).toBe(404);
    expect(ends(events)).toEqual([expect.objectContaining({ method: 'tools/call', outcome: 'error', errorCode: -32001 })]);
  });

  test('a request the client cancels ends as cancelled', async () => {
    const { served, events, started } = await observed();
    const sessionId = await initialize(served.url);
    const call = request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall('slow', 'wait')).then((res) => res);
    await started.promise;
    const cancel = await request(served.url)
      .post('')
      .set(clientHeaders(VERSION, sessionId))
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    expect(cancel.status).toBe(202);
    await call;
    await waitUntil(() => ends(events).length === 2, 'the end of the cancelled call');
    expect(ends(events)[1]).toMatchObject({ method: 'tools/call', toolName: 'wait', outcome: 'cancelled' });
    expect(ends(events)[1].errorCode).toBeUndefined();
  });

  test('a tool result that breaks its outputSchema is an error the client sees and onError gets', async () => {
    const { served, events, errors } = await observed();
    const sessionId = await initialize(served.url);
    const call = await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(3, 'liar'));
    expect(sseMessages(call.text).at(-1)).toMatchObject({ id: 3, error: { code: -32603, message: expect.stringContaining('does not match its outputSchema') } });
    expect(errors).toEqual([expect.objectContaining({ name: 'ToolOutputError', message: expect.stringContaining('Tool liar returned structuredContent') })]);
    expect(ends(events).at(-1)).toMatchObject({ toolName: 'liar', outcome: 'error', errorCode: -32603 });
  });
});

describe('stateless requests (2026-07-28)', () => {
  const post = (url: string, id: number, params: Record<string, unknown>) =>
    request(url).post('').set(modernHeaders('tools/call', params)).send(modernBody({ id, method: 'tools/call', params }));

  test('start and end carry era stateless and the request version', async () => {
    const { served, events } = await observed();
    const res = await post(served.url, 1, { name: 'add', arguments: { a: 1, b: 2 } });
    expect(res.body).toMatchObject({ id: 1, result: { content: [{ text: '3' }] } });
    expect(events).toEqual([
      { type: 'request.start', era: 'stateless', method: 'tools/call', toolName: 'add', requestId: 1, protocolVersion: '2026-07-28' },
      { type: 'request.end', era: 'stateless', method: 'tools/call', toolName: 'add', requestId: 1, protocolVersion: '2026-07-28', outcome: 'ok', durationMs: expect.any(Number) },
    ]);
  });

  test('an unserialisable result: the client gets -32603, onError the cause, the end event the error', async () => {
    const { served, events, errors } = await observed();
    const res = await post(served.url, 2, { name: 'huge', arguments: {} });
    expect(res.body).toMatchObject({ id: 2, error: { code: -32603 } });
    expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('The response to tools/call (id 2) could not be serialised as JSON'), cause: expect.any(TypeError) })]);
    expect(ends(events)).toEqual([expect.objectContaining({ toolName: 'huge', outcome: 'error', errorCode: -32603 })]);
  });
});

describe('session lifecycle', () => {
  test('DELETE closes (reason deleted); close() closes the rest (reason shutdown)', async () => {
    const { served, events } = await observed();
    const first = await initialize(served.url);
    const second = await initialize(served.url);
    expect((await request(served.url).delete('').set(clientHeaders(VERSION, first))).status).toBe(200);
    await served.close();
    const lifecycle = events.filter((event) => event.type.startsWith('session.'));
    expect(lifecycle).toEqual([
      { type: 'session.created', sessionId: first },
      { type: 'session.created', sessionId: second },
      { type: 'session.closed', sessionId: first, reason: 'deleted' },
      { type: 'session.closed', sessionId: second, reason: 'shutdown' },
    ]);
  });

  test('an idle session expires', async () => {
    const { served, events } = await observed({ sessionManager: new LocalSessionManager({ sessionIdleTimeout: 50 }) });
    const sessionId = await initialize(served.url);
    await waitUntil(() => events.some((event) => event.type === 'session.expired'), 'the session to expire');
    expect(events.filter((event) => event.type.startsWith('session.'))).toEqual([
      { type: 'session.created', sessionId },
      { type: 'session.expired', sessionId },
    ]);
  });

  test('another instance restores the session from the store; a DELETE there closes the copy here', async () => {
    const sessionStore = new InMemorySessionStore();
    const bus = new InMemoryMessageBus();
    const a = await observed({ sessionManager: new LocalSessionManager({ sessionStore }), bus });
    const b = await observed({ sessionManager: new LocalSessionManager({ sessionStore }), bus });
    const sessionId = await initialize(a.served.url);
    const call = await request(b.served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(1, 'add', { a: 1, b: 1 }));
    expect(sseMessages(call.text).at(-1)).toMatchObject({ id: 1, result: {} });
    expect(b.events.filter((event) => event.type.startsWith('session.'))).toEqual([{ type: 'session.restored', sessionId }]);
    expect((await request(b.served.url).delete('').set(clientHeaders(VERSION, sessionId))).status).toBe(200);
    await waitUntil(() => a.events.some((event) => event.type === 'session.closed'), 'the copy on A to close');
    expect(a.events.filter((event) => event.type.startsWith('session.'))).toEqual([
      { type: 'session.created', sessionId },
      { type: 'session.closed', sessionId, reason: 'deleted-elsewhere' },
    ]);
    expect(b.events.filter((event) => event.type === 'session.closed')).toEqual([{ type: 'session.closed', sessionId, reason: 'deleted' }]);
  });
});

describe('streams, refusals and hooks', () => {
  test('a GET with Last-Event-ID reports stream.resumed', async () => {
    const { served, events } = await observed();
    const sessionId = await initialize(served.url);
    const call = await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(1, 'add', { a: 1, b: 1 }));
    const primingId = /^id: (.+)$/m.exec(call.text)?.[1];
    expect(primingId).toBeDefined();
    const resumed = await request(served.url).get('').set({ ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': primingId! });
    expect(resumed.status).toBe(200);
    expect(events.filter((event) => event.type === 'stream.resumed')).toEqual([{ type: 'stream.resumed', era: 'session', sessionId, lastEventId: primingId }]);
  });

  test('a refused Host is reported with its status and message', async () => {
    const { served, events } = await observed();
    const res = await request(served.url).post('').set({ ...clientHeaders(VERSION), Host: 'evil.example' }).send(initializeRequest(VERSION));
    expect(res.status).toBe(403);
    expect(events).toEqual([{ type: 'request.refused', status: 403, message: res.body.error.message }]);
    expect(res.body.error.message).toContain('evil.example');
  });

  test('a hook that throws goes to onError and the request is answered', async () => {
    const errors: unknown[] = [];
    const failure = new Error('hook bug');
    const { server } = buildServer();
    const served = track(
      await serve({
        server,
        onError: (error) => errors.push(error),
        onEvent: () => {
          throw failure;
        },
      }),
    );
    const res = await request(served.url).post('').set(clientHeaders(VERSION)).send(initializeRequest(VERSION));
    expect(res.status).toBe(200);
    expect(sseMessages(res.text).at(-1)).toMatchObject({ result: { protocolVersion: VERSION } });
    expect(errors.length).toBeGreaterThanOrEqual(3); // start, session.created, end
    expect(errors.every((error) => error === failure)).toBe(true);
  });

  test('onEvent must be a function', async () => {
    const { server } = buildServer();
    await expect(serve({ server, onEvent: 'log' as never })).rejects.toThrow('onEvent must be a function');
  });
});
