/**
 * One error channel: the middleware's `onError` reaches every layer it builds or serves (the default session
 * manager, a session manager given without an `onError`, the McpServer's event listeners), so a session-era handler
 * failure, a store failure and a 2026-07-28 failure all land there. Options are checked before anything is changed,
 * and a misspelt option name gets a warning naming the closest known one.
 */
import { z } from 'zod';
import { InMemoryEventStore, LocalSessionManager, McpServer, mcpMiddleware, type EventStore, type McpMiddlewareOptions, type SseEvent } from '../../lib/index.js';
import { initializeRequest, openLive, openPost } from '../helpers/http-helpers.js';
import { callTool } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'errors', version: '1.0.0' });
  server.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.setRequestHandler('custom/explode', () => {
    throw new Error('kaboom in a handler');
  });
  server.tool('echo', { inputSchema: { text: z.string().optional() } }, ({ text }) => ({ content: [{ type: 'text', text: text ?? '' }] }));
  return server;
}

/** An event store whose writes fail: a store failure the client cannot be told about. */
class FailingEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  async storeEvent(_streamId: string, _event: SseEvent): Promise<string> {
    throw new Error('the event store is down');
  }
  replayEventsAfter(lastEventId: string) {
    return this.inner.replayEventsAfter(lastEventId);
  }
  streamIdOf(eventId: string) {
    return this.inner.streamIdOf(eventId);
  }
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function initialize(s: Served): Promise<string> {
  const live = await openLive(s, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest('2025-11-25', 1) });
  await live.ended;
  return live.headers['mcp-session-id'] as string;
}

test('a session-era handler failure with the default session manager reaches the middleware onError', async () => {
  const errors: unknown[] = [];
  served = await serve({ server: buildServer(), sseKeepAlive: 0, onError: (error) => errors.push(error) });
  const sessionId = await initialize(served);
  const call = await openPost(served, '2025-11-25', sessionId, { jsonrpc: '2.0', id: 2, method: 'custom/explode' });
  await call.ended;
  expect(call.messages().at(-1)).toMatchObject({ id: 2, error: { code: -32603 } });
  expect(errors.map((error) => (error as Error).message)).toEqual(['kaboom in a handler']);
});

test('a store failure of a session manager given without its own onError reaches the middleware onError', async () => {
  const errors: unknown[] = [];
  served = await serve({
    server: buildServer(),
    sseKeepAlive: 0,
    sessionManager: new LocalSessionManager({ eventStore: new FailingEventStore() }),
    onError: (error) => errors.push(error),
  });
  const sessionId = await initialize(served);
  const call = await openPost(served, '2025-11-25', sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ok', arguments: {} } });
  await call.ended;
  // The reply still arrives (without store ids); every failed write was reported.
  expect(call.messages().at(-1)).toMatchObject({ id: 2, result: { content: [{ text: 'ok' }] } });
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.every((error) => (error as Error).message === 'the event store is down')).toBe(true);
});

test('a 2026-07-28 handler failure and a failing server-event listener reach the same onError', async () => {
  const errors: unknown[] = [];
  const server = buildServer();
  served = await serve({ server, sseKeepAlive: 0, onError: (error) => errors.push(error) });
  const reply = await fetch(served.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'custom/explode' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'custom/explode', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  expect(await reply.json()).toMatchObject({ id: 3, error: { code: -32603 } });
  expect((errors[0] as Error).message).toBe('kaboom in a handler');

  const stop = server.addEventListener(() => {
    throw new Error('a listener failed');
  });
  server.notifyToolsListChanged();
  stop();
  expect((errors[1] as Error).message).toBe('a listener failed');
  // The 2026 path still works after both.
  expect((await callTool(served.port, 'echo', { text: 'still fine' })).status).toBe(200);
});

describe('option checks', () => {
  test('an invalid option throws before the session manager is attached to the server', () => {
    const server = buildServer();
    const sessionManager = new LocalSessionManager();
    expect(() => mcpMiddleware({ server, sessionManager, responseMode: 'xml' as 'json' })).toThrow(/responseMode/);
    // Nothing was attached: the same manager can still serve another server.
    const other = mcpMiddleware({ server: buildServer(), sessionManager });
    return other.close();
  });

  test('a misspelt option gets a warning naming the closest known one, once per name', () => {
    const warnings: Array<{ message: string; code?: string }> = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation(((message: string, options?: { code?: string }) => {
      warnings.push({ message, code: options?.code });
    }) as typeof process.emitWarning);
    try {
      const middleware = mcpMiddleware({ server: buildServer(), maxBodySize: 10, sseKeepalive: 0 } as McpMiddlewareOptions);
      void middleware.close();
    } finally {
      spy.mockRestore();
    }
    expect(warnings).toEqual([
      { message: expect.stringContaining('"maxBodySize" is ignored; did you mean "maxBodyBytes"?'), code: 'MCP_EXPRESS_UNKNOWN_OPTION' },
      { message: expect.stringContaining('"sseKeepalive" is ignored; did you mean "sseKeepAlive"?'), code: 'MCP_EXPRESS_UNKNOWN_OPTION' },
    ]);
  });

  test('a name far from every option is still reported, without a guess', () => {
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      void mcpMiddleware({ server: buildServer(), completelyUnrelated: true } as unknown as McpMiddlewareOptions).close();
      expect(spy).toHaveBeenCalledWith(expect.not.stringContaining('did you mean'), expect.objectContaining({ code: 'MCP_EXPRESS_UNKNOWN_OPTION' }));
    } finally {
      spy.mockRestore();
    }
  });
});
