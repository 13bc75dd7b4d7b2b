/**
 * Per-tool, per-prompt and per-resource requiredScopes: the spec's step-up challenge (HTTP 403
 * `insufficient_scope` with `scope` and `resource_metadata`) before any stream starts, in both eras, with and
 * without sessions, and in 2025-03-26 batches; other tools keep working with the same token.
 */
import { z } from 'zod';
import { McpServer, requireBearerAuth, type McpMiddlewareOptions, type OAuthTokenVerifier } from '../../lib/index.js';
import { clientHeaders, initializeRequest } from '../helpers/http-helpers.js';
import { callTool, modern, rawRequest, resultOf, textOf, type Reply } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';

const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const SCOPES: Record<string, string[]> = { basic: ['mcp:tools'], admin: ['mcp:tools', 'mcp:admin'], reader: ['mcp:tools', 'files:read'] };
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    const scopes = SCOPES[token];
    if (!scopes) throw new Error('unknown token');
    return { token, clientId: 'client-1', scopes };
  },
};

function scopedServer(): McpServer {
  const server = new McpServer({ name: 'step-up-spec', version: '1.0.0' });
  server.tool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool('reset', { description: 'Admin only', requiredScopes: ['mcp:admin'] }, () => ({ content: [{ type: 'text', text: 'reset done' }] }));
  server.prompt('secret_prompt', { requiredScopes: ['mcp:admin'] }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'secret' } }] }));
  server.resource('public', 'file:///public.txt', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'public' }] }));
  server.resource('private', 'file:///private.txt', { mimeType: 'text/plain', requiredScopes: ['files:read'] }, (uri) => ({ contents: [{ uri: uri.href, text: 'private' }] }));
  server.resourceTemplate('vault', 'vault:///{item}', { requiredScopes: ['files:read'] }, (uri, { item }) => ({ contents: [{ uri: uri.href, text: `vault ${item}` }] }));
  return server;
}

let served: Served | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(options: Partial<McpMiddlewareOptions> = {}, auth: 'bearer' | 'none' = 'bearer'): Promise<Served> {
  served = await serve({ server: scopedServer(), enableJsonResponse: true, ...options }, (app) => {
    if (auth === 'bearer') app.use(requireBearerAuth({ verifier, resourceMetadataUrl: METADATA_URL }));
  });
  return served;
}

function post(port: number, headers: Record<string, string>, body: unknown): Promise<Reply> {
  return rawRequest(port, 'POST', headers, JSON.stringify(body));
}

async function session(port: number, token: string | undefined, version = '2025-11-25'): Promise<Record<string, string>> {
  const auth: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const init = await post(port, { ...clientHeaders(version), ...auth }, initializeRequest(version));
  expect(init.status).toBe(200);
  const headers = { ...clientHeaders(version, String(init.headers['mcp-session-id'])), ...auth };
  await post(port, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return headers;
}

function expectStepUp(reply: Reply, scope: string, id: number | string, missing: string[]): void {
  expect(reply.status).toBe(403);
  expect(reply.headers['www-authenticate']).toBe(
    `Bearer error="insufficient_scope", error_description="This request needs the scopes ${missing.join(' ')}", scope="${scope}", resource_metadata="${METADATA_URL}"`,
  );
  expect(reply.json).toEqual({
    jsonrpc: '2.0',
    id,
    error: { code: -32000, message: expect.stringMatching(/^Forbidden: .* needs the scopes/), data: { requiredScopes: expect.any(Array), missingScopes: missing } },
  });
}

describe('session era (2025-11-25 session)', () => {
  test('a tool with requiredScopes: 403 step-up for a token without them; other tools still work', async () => {
    const { port } = await start();
    const headers = await session(port, 'basic');
    const denied = await post(port, headers, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'reset', arguments: {} } });
    expectStepUp(denied, 'mcp:tools mcp:admin', 7, ['mcp:admin']);
    const echo = await post(port, headers, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
    expect(echo.status).toBe(200);
    expect(textOf(echo.json.result)).toBe('still here');
  });

  test('the same session with a stepped-up token gets the tool', async () => {
    const { port } = await start();
    const headers = await session(port, 'basic');
    const allowed = await post(port, { ...headers, Authorization: 'Bearer admin' }, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'reset', arguments: {} } });
    expect(allowed.status).toBe(200);
    expect(textOf(allowed.json.result)).toBe('reset done');
  });

  test('prompts and resources (exact and by template) with requiredScopes', async () => {
    const { port } = await start();
    const headers = await session(port, 'basic');
    expectStepUp(await post(port, headers, { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'secret_prompt' } }), 'mcp:tools mcp:admin', 1, ['mcp:admin']);
    expectStepUp(await post(port, headers, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'file:///private.txt' } }), 'mcp:tools files:read', 2, ['files:read']);
    expectStepUp(await post(port, headers, { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'vault:///gold' } }), 'mcp:tools files:read', 3, ['files:read']);
    const open = await post(port, headers, { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'file:///public.txt' } });
    expect(open.json.result.contents[0].text).toBe('public');
    const reader = { ...headers, Authorization: 'Bearer reader' };
    expect((await post(port, reader, { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'vault:///gold' } })).json.result.contents[0].text).toBe('vault gold');
  });

  test('requiredScopes are not listed', async () => {
    const { port } = await start();
    const headers = await session(port, 'basic');
    const resources = await post(port, headers, { jsonrpc: '2.0', id: 1, method: 'resources/list' });
    expect(resources.json.result.resources.find((r: { name: string }) => r.name === 'private')).toEqual({ uri: 'file:///private.txt', name: 'private', mimeType: 'text/plain' });
    const templates = await post(port, headers, { jsonrpc: '2.0', id: 2, method: 'resources/templates/list' });
    expect(templates.json.result.resourceTemplates).toEqual([{ uriTemplate: 'vault:///{item}', name: 'vault' }]);
    const tools = await post(port, headers, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(Object.keys(tools.json.result.tools.find((t: { name: string }) => t.name === 'reset')).sort()).toEqual(['description', 'inputSchema', 'name']);
  });

  test('a 2025-03-26 batch naming a scoped tool is refused as a whole, before anything runs', async () => {
    const { port } = await start();
    const headers = await session(port, 'basic', '2025-03-26');
    const reply = await post(port, headers, [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'reset', arguments: {} } },
    ]);
    expectStepUp(reply, 'mcp:tools mcp:admin', 2, ['mcp:admin']);
  });
});

describe('2026-07-28 (stateless)', () => {
  const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  test('403 step-up for the scoped tool, the other tool answers', async () => {
    const { port } = await start();
    const denied = await callTool(port, 'reset', {}, { id: 11, ...bearer('basic') });
    expectStepUp(denied, 'mcp:tools mcp:admin', 11, ['mcp:admin']);
    expect(textOf(resultOf(await callTool(port, 'echo', { text: 'ok' }, bearer('basic'))))).toBe('ok');
    expect(textOf(resultOf(await callTool(port, 'reset', {}, bearer('admin'))))).toBe('reset done');
  });

  test('resources/read by template', async () => {
    const { port } = await start();
    const denied = await modern(port, { id: 12, method: 'resources/read', params: { uri: 'vault:///x' }, ...bearer('basic') });
    expectStepUp(denied, 'mcp:tools files:read', 12, ['files:read']);
  });
});

test('sessions off (legacySessions: false): a 2025-era call gets the same 403', async () => {
  const { port } = await start({ legacySessions: false });
  const headers = { ...clientHeaders('2025-06-18'), Authorization: 'Bearer basic' };
  expectStepUp(await post(port, headers, { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'reset', arguments: {} } }), 'mcp:tools mcp:admin', 'a', ['mcp:admin']);
  expect((await post(port, headers, { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } })).status).toBe(200);
});

test('the middleware option resourceMetadataUrl wins over the one requireBearerAuth advertised', async () => {
  const { port } = await start({ resourceMetadataUrl: 'https://other.example/.well-known/oauth-protected-resource' });
  const reply = await callTool(port, 'reset', {}, { headers: { Authorization: 'Bearer basic' } });
  expect(reply.status).toBe(403);
  expect(reply.headers['www-authenticate']).toContain('resource_metadata="https://other.example/.well-known/oauth-protected-resource"');
});

test('no auth middleware at all: a scoped tool answers 401 (fails closed), others are served', async () => {
  const { port } = await start({}, 'none');
  const denied = await callTool(port, 'reset', {}, { id: 5 });
  expect(denied.status).toBe(401);
  expect(denied.headers['www-authenticate']).toBe('Bearer error_description="This request needs an access token", scope="mcp:admin"');
  expect(denied.json.error.message).toMatch(/^Unauthorized: tools\/call reset needs an access token/);
  expect(textOf(resultOf(await callTool(port, 'echo', { text: 'open' })))).toBe('open');
});

test('requiredScopesFor: which calls need which scopes', () => {
  const server = scopedServer();
  expect(server.requiredScopesFor('tools/call', { name: 'reset' })).toEqual(['mcp:admin']);
  expect(server.requiredScopesFor('tools/call', { name: 'echo' })).toBeUndefined();
  expect(server.requiredScopesFor('tools/call', { name: 'nope' })).toBeUndefined();
  expect(server.requiredScopesFor('tools/call', undefined)).toBeUndefined();
  expect(server.requiredScopesFor('prompts/get', { name: 'secret_prompt' })).toEqual(['mcp:admin']);
  expect(server.requiredScopesFor('resources/read', { uri: 'vault:///a' })).toEqual(['files:read']);
  expect(server.requiredScopesFor('resources/read', { uri: 'file:///public.txt' })).toBeUndefined();
  expect(server.requiredScopesFor('tools/list', {})).toBeUndefined();
  const tool = server.tool('later', { requiredScopes: ['x'] }, () => ({ content: [] }));
  tool.disable();
  expect(server.requiredScopesFor('tools/call', { name: 'later' })).toBeUndefined();
});
