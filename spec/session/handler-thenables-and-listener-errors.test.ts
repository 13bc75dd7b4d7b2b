/**
 * Server-side fixes: a low-level handler returning a non-native thenable is awaited, and an exception in
 * a server event listener goes to `McpServerOptions.onError` without stopping the other listeners.
 */
import { LocalSessionManager, McpServer } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { modern } from '../helpers/modern.js';
import { RawClient } from '../helpers/raw-client.js';
import { serve } from '../helpers/serve.js';
import { postWithin, sseMessages } from './fixtures.js';

function thenableServer(): McpServer {
  const server = new McpServer({ name: 'thenable', version: '1.0.0' });
  // Not a Promise: an object with a then() method, as some libraries return.
  server.setRequestHandler('custom/thenable', () => ({
    then(resolve: (value: Record<string, unknown>) => void) {
      resolve({ ok: true });
    },
  }));
  server.setRequestHandler('custom/thenable-rejects', () => ({
    then(_resolve: (value: unknown) => void, reject: (reason: unknown) => void) {
      reject(new Error('thenable said no'));
    },
  }));
  return server;
}

describe('a low-level handler returning a non-native thenable', () => {
  test('in a session, the thenable is awaited: the response is { ok: true }', async () => {
    const served = await serve({ server: thenableServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ onError: () => undefined }) });
    try {
      const client = new RawClient(served.url);
      await client.initialize();
      const reply = await postWithin(client, { jsonrpc: '2.0', id: 3, method: 'custom/thenable' });
      expect(reply.status).toBe(200);
      expect(sseMessages(reply.body)).toEqual([{ jsonrpc: '2.0', id: 3, result: { ok: true } }]);
      const rejected = await postWithin(client, { jsonrpc: '2.0', id: 4, method: 'custom/thenable-rejects' });
      // The exception's own text stays on the server (onError); the client gets the generic -32603.
      expect(sseMessages(rejected.body)).toEqual([{ jsonrpc: '2.0', id: 4, error: { code: -32603, message: expect.stringContaining('custom/thenable-rejects') } }]);
      expect(rejected.body).not.toContain('thenable said no');
    } finally {
      await served.close();
    }
  });

  test('in a 2026-07-28 request, the thenable is awaited too', async () => {
    const served = await serve({ server: thenableServer(), sseKeepAlive: 0, onError: () => undefined });
    try {
      const reply = await modern(served.port, { id: 5, method: 'custom/thenable' });
      expect(reply.status).toBe(200);
      expect(reply.final).toEqual({ jsonrpc: '2.0', id: 5, result: { ok: true, resultType: 'complete' } });
    } finally {
      await served.close();
    }
  });
});

describe('a throwing server event listener', () => {
  test('its exception goes to McpServerOptions.onError and the other listeners still run', () => {
    const errors: unknown[] = [];
    const server = new McpServer({ name: 'listeners', version: '1.0.0' }, { onError: (error) => errors.push(error) });
    const seen: string[] = [];
    server.addEventListener((event) => seen.push(`first ${event.notification.method}`));
    server.addEventListener(() => {
      throw new Error('x');
    });
    server.addEventListener((event) => seen.push(`last ${event.notification.method}`));
    expect(() => server.notifyToolsListChanged()).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
    expect((errors[0] as Error).message).toBe('x');
    expect(seen).toEqual(['first notifications/tools/list_changed', 'last notifications/tools/list_changed']);

    server.notifyResourceUpdated('test://r');
    expect(errors).toHaveLength(2);
    expect(seen.slice(2)).toEqual(['first notifications/resources/updated', 'last notifications/resources/updated']);
  });

  test('a listener that throws before the session manager\'s does not keep list_changed from the sessions\' GET streams', async () => {
    const errors: unknown[] = [];
    const server = new McpServer({ name: 'listeners', version: '1.0.0' }, { onError: (error) => errors.push(error) });
    server.tool('one', { description: 'A tool' }, () => ({ content: [] }));
    server.addEventListener(() => {
      throw new Error('listener registered first');
    });
    const served = await serve({ server, sseKeepAlive: 0 });
    try {
      const client = new RawClient(served.url);
      await client.initialize();
      const live = await openLive(served, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': client.sessionId!, 'MCP-Protocol-Version': client.protocolVersion } });
      expect(live.status).toBe(200);
      await live.waitFor(() => live.frames().length > 0); // priming: the GET is registered
      server.notifyToolsListChanged();
      expect(await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/tools/list_changed')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
      expect(errors.map((error) => (error as Error).message)).toEqual(['listener registered first']);
      live.close();
    } finally {
      await served.close();
    }
  });
});
