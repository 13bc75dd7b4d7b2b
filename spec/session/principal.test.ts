/** `principalOf` decides who owns a session: users of one OAuth client are kept apart when it returns a user id. */
import type { Request } from 'express';
import type { McpMiddlewareOptions } from '../../lib/index.js';
import { McpServer } from '../../lib/index.js';
import { serve, type Served } from '../helpers/serve.js';

function server(): McpServer {
  const s = new McpServer({ name: 'principal', version: '1.0.0' });
  s.tool('whoami', { description: 'Names the caller' }, (_args, ctx) => ({ content: [{ type: 'text', text: String(ctx.authInfo?.extra?.sub) }] }));
  return s;
}

const json = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function start(principalOf?: McpMiddlewareOptions['principalOf']): Promise<Served> {
  return serve({ server: server(), ...(principalOf ? { principalOf } : {}) }, (app) => {
    // One OAuth client ("web-app") for every user; the user is in extra.sub.
    app.use((req, _res, next) => {
      (req as Request & { auth?: unknown }).auth = { token: 't', clientId: 'web-app', scopes: [], extra: { sub: req.headers['x-user'] } };
      next();
    });
  });
}

async function initializeAs(served: Served, user: string): Promise<string> {
  const response = await fetch(served.url, {
    method: 'POST',
    headers: { ...json, 'X-User': user },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

const callAs = (served: Served, user: string, sessionId: string) =>
  fetch(served.url, {
    method: 'POST',
    headers: { ...json, 'X-User': user, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });

test('by default a session belongs to req.auth.clientId, so users of one client share it', async () => {
  const served = await start();
  const sessionId = await initializeAs(served, 'alice');
  expect((await callAs(served, 'bob', sessionId)).status).toBe(200);
  await served.close();
});

test('with principalOf returning the user, another user of the same client gets 404', async () => {
  const served = await start((req) => req.auth?.extra?.sub as string | undefined);
  const sessionId = await initializeAs(served, 'alice');
  const alice = await callAs(served, 'alice', sessionId);
  expect(alice.status).toBe(200);
  expect(await alice.text()).toContain('"text":"alice"');
  const bob = await callAs(served, 'bob', sessionId);
  expect(bob.status).toBe(404);
  expect(await bob.json()).toMatchObject({ error: { code: -32001 } });
  await served.close();
});
