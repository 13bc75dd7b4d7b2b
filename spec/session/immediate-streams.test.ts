/**
 * A session request in a session this process holds is opened through the manager's `createStreamNow` and written
 * without awaiting a promise for its stream (the manager's immediate streams). A session it does not hold (one to
 * restore from a SessionStore, or none) goes through `createStream`, and so does every request of a subclass that
 * overrides `createStream`: its own version is always called. Either way the client gets the same answers.
 */
import { immediateStreamsOf } from '../../lib/session/immediate-streams.js';
import { InMemorySessionStore, LocalSessionManager, McpServer, NeverSessionManager, type RequestInfo, type SseStream } from '../../lib/index.js';
import type { JsonRpcRequest } from '../../lib/protocol/jsonrpc.js';
import { clientHeaders, openSession, sseMessages, startHarness, toolCall, type Harness } from '../helpers/http-helpers.js';
import { closeAfterEach } from '../helpers/serve.js';

const VERSION = '2025-11-25';
const track = closeAfterEach();

function call(h: Harness, sessionId: string, id: number, text = 'hi', headers: Record<string, string> = {}) {
  return h
    .api()
    .post('/mcp')
    .set({ ...clientHeaders(VERSION, sessionId), ...headers })
    .send(toolCall(id, 'echo', { text }));
}

describe('immediateStreamsOf', () => {
  test('a LocalSessionManager, or a subclass that keeps its createStream, has immediate streams', () => {
    const manager = new LocalSessionManager();
    expect(immediateStreamsOf(manager)).toBe(manager);
    class Named extends LocalSessionManager {
      label = 'named';
    }
    const named = new Named();
    expect(immediateStreamsOf(named)).toBe(named);
  });

  test('a subclass that overrides createStream, and a stateless manager, have none', () => {
    class Counting extends LocalSessionManager {
      override createStream(sessionId: string, request: JsonRpcRequest, info: RequestInfo): Promise<SseStream> {
        return super.createStream(sessionId, request, info);
      }
    }
    expect(immediateStreamsOf(new Counting())).toBeUndefined();
    expect(immediateStreamsOf(new NeverSessionManager())).toBeUndefined();
  });
});

describe('a session request over HTTP', () => {
  test('in a session held here, is opened by createStreamNow and never by createStream', async () => {
    const manager = new LocalSessionManager();
    const now = jest.spyOn(manager, 'createStreamNow');
    const later = jest.spyOn(LocalSessionManager.prototype, 'createStream');
    try {
      const h = track(await startHarness({ sessionManager: manager }));
      const sessionId = await openSession(h, VERSION);
      for (const id of [1, 2]) {
        const res = await call(h, sessionId, id, `call ${id}`);
        expect(res.status).toBe(200);
        expect(sseMessages(res.text).at(-1)).toMatchObject({ id, result: { content: [{ type: 'text', text: `call ${id}` }] } });
      }
      expect(now).toHaveBeenCalledTimes(2);
      expect(now.mock.calls[0][0]).toBe(sessionId);
      expect(now.mock.results.every((result) => result.type === 'return' && result.value !== undefined)).toBe(true);
      expect(later).not.toHaveBeenCalled();
    } finally {
      later.mockRestore();
    }
  });

  test('through a subclass that overrides createStream, calls its createStream for every request', async () => {
    const opened: string[] = [];
    class Counting extends LocalSessionManager {
      override createStream(sessionId: string, request: JsonRpcRequest, info: RequestInfo): Promise<SseStream> {
        opened.push(String(request.id));
        return super.createStream(sessionId, request, info);
      }
    }
    const h = track(await startHarness({ sessionManager: new Counting() }));
    const sessionId = await openSession(h, VERSION);
    const res = await call(h, sessionId, 7, 'counted');
    expect(res.status).toBe(200);
    expect(sseMessages(res.text).at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'counted' }] } });
    expect(opened).toEqual(['7']);
  });

  test('in a session another instance created, restores it from the SessionStore through createStream', async () => {
    const sessionStore = new InMemorySessionStore();
    const a = track(await startHarness({ sessionManager: new LocalSessionManager({ sessionStore }) }));
    const managerB = new LocalSessionManager({ sessionStore });
    const now = jest.spyOn(managerB, 'createStreamNow');
    const b = track(await startHarness({ sessionManager: managerB }));
    const sessionId = await openSession(a, VERSION);
    const first = await call(b, sessionId, 1, 'restored');
    expect(first.status).toBe(200);
    expect(sseMessages(first.text).at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'restored' }] } });
    // Not held by B at first (createStreamNow had nothing), held once restored: the next call is immediate.
    expect(now.mock.results[0]).toEqual({ type: 'return', value: undefined });
    const second = await call(b, sessionId, 2, 'held');
    expect(sseMessages(second.text).at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'held' }] } });
    expect(now.mock.results[1].value).toBeDefined();
  });

  test('in an unknown session, or in one of another principal, answers 404 with the request id', async () => {
    const server = new McpServer({ name: 'owners', version: '1.0.0' });
    server.tool('echo', { description: 'Echo' }, () => ({ content: [{ type: 'text', text: 'never for another principal' }] }));
    // The session is alice's (no X-User header); mallory names herself.
    const h = track(await startHarness({ server, principalOf: (req) => (req.headers['x-user'] as string | undefined) ?? 'alice' }));
    const sessionId = await openSession(h, VERSION);
    const unknown = await call(h, '00000000-0000-4000-8000-000000000000', 3);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32001 } });
    const other = await call(h, sessionId, 4, 'hi', { 'X-User': 'mallory' });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32001 } });
    expect(other.text).not.toContain('never for another principal');
  });
});
