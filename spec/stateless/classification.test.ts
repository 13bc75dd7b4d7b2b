/**
 * One endpoint, two eras (spec 2026-07-28 basic/versioning): a 2025-era `initialize` opens a session; a request
 * carrying the 2026 `_meta` envelope is served statelessly; classification goes by envelope/header, not by method.
 */
import { ACCEPT_BOTH, callTool, envelope, modern, MODERN, rawRequest, resultOf, startModern, textOf, type ModernHarness } from '../helpers/modern.js';

let h: ModernHarness;
beforeEach(async () => {
  h = await startModern();
});
afterEach(() => h.close());

const legacyHeaders = (extra: Record<string, string> = {}) => ({ 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, ...extra });

async function initialize(version = '2025-11-25'): Promise<string> {
  const reply = await rawRequest(
    h.port,
    'POST',
    legacyHeaders(),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } }),
  );
  expect(reply.status).toBe(200);
  expect(resultOf(reply)).toMatchObject({ protocolVersion: version, serverInfo: { name: 'stateless-spec' } });
  const sessionId = reply.headers['mcp-session-id'];
  expect(typeof sessionId).toBe('string');
  const initialized = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'Mcp-Session-Id': sessionId as string, 'MCP-Protocol-Version': version }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  expect(initialized.status).toBe(202);
  return sessionId as string;
}

test('a 2025-era initialize gets a session, and a 2026 request on the same app is served with none', async () => {
  const sessionId = await initialize();
  expect(sessionId).toMatch(/^[\x21-\x7E]+$/);

  const legacyCall = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' }),
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  );
  expect(legacyCall.status).toBe(200);
  expect(JSON.parse(textOf(resultOf(legacyCall)))).toMatchObject({ protocolVersion: '2025-11-25', sessionId });
  // 2025-era results carry no 2026 decoration.
  expect(resultOf(legacyCall).resultType).toBeUndefined();

  const modernCall = await callTool(h.port, 'whoami', {}, { id: 3 });
  expect(modernCall.status).toBe(200);
  expect(modernCall.headers['mcp-session-id']).toBeUndefined();
  expect(modernCall.final.id).toBe(3);
  const seen = JSON.parse(textOf(resultOf(modernCall)));
  expect(seen).toEqual({ protocolVersion: MODERN, sessionId: null, clientInfo: { name: 'stateless-spec', version: '1.0.0' } });
  expect(resultOf(modernCall).resultType).toBe('complete');
});

test('a 2026 request never mints a session, whatever its method', async () => {
  for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list']) {
    const reply = await modern(h.port, { method });
    expect(reply.status).toBe(200);
    expect(reply.headers['mcp-session-id']).toBeUndefined();
  }
});

test('initialize carrying a modern envelope and header 2026-07-28 is a removed method: 404 / -32601', async () => {
  const reply = await modern(h.port, {
    id: 'init-modern',
    method: 'initialize',
    params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  expect(reply.status).toBe(404);
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 'init-modern', error: { code: -32601 } });
  expect(reply.headers['mcp-session-id']).toBeUndefined();
});

test('an initialize with header 2026-07-28 but no envelope is classified modern by its header (-32602, no session)', async () => {
  const reply = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'initialize' }),
    JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  );
  expect(reply.status).toBe(400);
  expect(reply.json).toMatchObject({ id: 9, error: { code: -32602 } });
  expect(reply.headers['mcp-session-id']).toBeUndefined();
});

test('a session-era request with MCP-Protocol-Version 2024-01-01 gets the session-era 400', async () => {
  // Without a session (an old-dated header keeps the request in the session era).
  const bare = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'MCP-Protocol-Version': '2024-01-01' }),
    JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
  );
  expect(bare.status).toBe(400);
  expect(bare.json).toMatchObject({ id: 5, error: { code: -32000 } });
  expect(bare.json.error.message).toMatch(/2024-01-01/);

  // Inside a valid session.
  const sessionId = await initialize();
  const inSession = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2024-01-01' }),
    JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
  );
  expect(inSession.status).toBe(400);
  expect(inSession.json).toMatchObject({ id: 6, error: { code: -32000 } });
  // It is not mistaken for a 2026 error.
  expect([-32020, -32021, -32022]).not.toContain(inSession.json.error.code);
});

test('a request with a session id stays in the session era even with a modern envelope (reference discriminator)', async () => {
  const sessionId = await initialize();
  const reply = await rawRequest(
    h.port,
    'POST',
    legacyHeaders({ 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' }),
    JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: envelope() } }),
  );
  expect(reply.status).toBe(200);
  expect(JSON.parse(textOf(resultOf(reply)))).toMatchObject({ protocolVersion: '2025-11-25', sessionId });
});

test('a session-era request without a session is still told to initialize (the modern path is not taken)', async () => {
  const reply = await rawRequest(h.port, 'POST', legacyHeaders({ 'MCP-Protocol-Version': '2025-06-18' }), JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }));
  expect(reply.status).toBe(400);
  expect(reply.json).toMatchObject({ id: 8, error: { code: -32000 } });
  expect(reply.json.error.message).toMatch(/Mcp-Session-Id/);
});
