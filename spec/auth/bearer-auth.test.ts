/**
 * requireBearerAuth on a real Express app in front of mcpMiddleware, with JWTs signed and verified by jose:
 * RFC 6750 statuses and challenges (missing, malformed, refused, expired, wrong audience, insufficient scope), and
 * req.auth reaching the handlers as ctx.authInfo.
 */
import request from 'supertest';
import { z } from 'zod';
import { InvalidTokenError, McpServer, requireBearerAuth, type AuthInfo, type OAuthTokenVerifier } from '../../lib/index.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';
import { serve, type Served } from '../helpers/serve.js';
import { jwtFixture, type JwtFixture } from './jwt-fixture.js';

const RESOURCE_METADATA_URL = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';
const AUDIENCE = 'http://127.0.0.1/mcp';

function whoamiServer(): McpServer {
  const server = new McpServer({ name: 'bearer-spec', version: '1.0.0' });
  server.tool('whoami', { inputSchema: { echo: z.string().optional() } }, (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify({ clientId: ctx.authInfo?.clientId, scopes: ctx.authInfo?.scopes }) }],
  }));
  return server;
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

let jwt: JwtFixture;
let served: Served | undefined;

beforeAll(async () => {
  jwt = await jwtFixture(AUDIENCE);
});

afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(verifier: OAuthTokenVerifier, options: { requiredScopes?: string[]; expectedResource?: string } = {}): Promise<request.Agent> {
  served = await serve({ server: whoamiServer(), enableJsonResponse: true }, (app) => {
    app.use(requireBearerAuth({ verifier, resourceMetadataUrl: RESOURCE_METADATA_URL, ...options }));
  });
  return request.agent(served.url.replace(/\/mcp$/, ''));
}

function post(api: request.Agent, authorization?: string) {
  const call = api.post('/mcp').set('Accept', ACCEPT_BOTH).set('Content-Type', 'application/json');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(initialize);
}

describe('requests without a usable token', () => {
  test('no Authorization header: 401 with a resource_metadata challenge and no error code (RFC 6750 §3.1)', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer error_description="This endpoint needs an access token: send Authorization: Bearer <token>", resource_metadata="${RESOURCE_METADATA_URL}"`);
    expect(res.body).toEqual({ error_description: expect.stringContaining('Authorization: Bearer') });
  });

  test('another scheme (Basic): 401 challenge without an error code', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, 'Basic dXNlcjpwYXNz');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error_description="The Authorization header uses the Basic scheme/);
    expect(res.headers['www-authenticate']).not.toMatch(/error="/);
  });

  test.each([
    ['Bearer', 'no token'],
    ['Bearer   ', 'only spaces'],
    ['Bearer a b', 'two tokens'],
    ['Bearer tok@en', 'a character outside b64token'],
  ])('malformed header %j (%s): 400 invalid_request', async (authorization) => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, authorization);
    expect(res.status).toBe(400);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_request", error_description="Malformed Authorization header/);
    expect(res.headers['www-authenticate']).toContain(`resource_metadata="${RESOURCE_METADATA_URL}"`);
    expect(res.body.error).toBe('invalid_request');
  });

  test('an expired token: 401 invalid_token saying it expired', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, `Bearer ${await jwt.sign({ expiresIn: -120 })}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer error="invalid_token", error_description="The access token has expired", resource_metadata="${RESOURCE_METADATA_URL}"`);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'The access token has expired' });
  });

  test('a token for another resource (audience): 401 invalid_token', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, `Bearer ${await jwt.sign({ aud: 'https://other.example/mcp' })}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.body.error_description).toMatch(/aud/);
  });

  test('a token signed by an untrusted key: 401 invalid_token', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, `Bearer ${await jwt.signWithOtherKey()}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.body.error_description).toMatch(/signature/);
  });

  test('a token from another issuer: 401 invalid_token', async () => {
    const api = await start(jwt.verifier(AUDIENCE));
    const res = await post(api, `Bearer ${await jwt.sign({ iss: 'https://evil.example' })}`);
    expect(res.status).toBe(401);
    expect(res.body.error_description).toMatch(/iss/);
  });

  test('a verifier that throws a plain Error: 401 invalid_token with a generic description (no internals)', async () => {
    const api = await start({ verifyAccessToken: async () => { throw new Error('database password wrong at db.internal:5432'); } });
    const res = await post(api, 'Bearer abc');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
  });

  test('an InvalidTokenError message with quotes and line breaks cannot break the header', async () => {
    const api = await start({ verifyAccessToken: async () => { throw new InvalidTokenError('bad "token"\r\nX-Injected: 1'); } });
    const res = await post(api, 'Bearer abc');
    expect(res.status).toBe(401);
    expect(res.headers['x-injected']).toBeUndefined();
    expect(res.headers['www-authenticate']).toBe(`Bearer error="invalid_token", error_description="bad ?token???X-Injected: 1", resource_metadata="${RESOURCE_METADATA_URL}"`);
  });

  test('expiresAt in the past from a verifier that does not check expiry: 401', async () => {
    const info: AuthInfo = { token: 'abc', clientId: 'c', scopes: [], expiresAt: Math.floor(Date.now() / 1000) - 1 };
    const api = await start({ verifyAccessToken: async () => info });
    const res = await post(api, 'Bearer abc');
    expect(res.status).toBe(401);
    expect(res.body.error_description).toMatch(/expired/);
  });

  test('expectedResource: a token whose AuthInfo.resource names another server gets 401', async () => {
    const info: AuthInfo = { token: 'abc', clientId: 'c', scopes: [], resource: new URL('https://other.example/mcp') };
    const api = await start({ verifyAccessToken: async () => info }, { expectedResource: AUDIENCE });
    const res = await post(api, 'Bearer abc');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'The access token was not issued for this resource' });
  });
});

describe('requiredScopes', () => {
  test('a token without them: 403 insufficient_scope naming its scopes plus the missing ones', async () => {
    const api = await start(jwt.verifier(AUDIENCE), { requiredScopes: ['mcp:tools', 'mcp:read'] });
    const res = await post(api, `Bearer ${await jwt.sign({ scope: 'mcp:read profile' })}`);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a required scope (mcp:tools mcp:read)", scope="mcp:read profile mcp:tools", resource_metadata="${RESOURCE_METADATA_URL}"`,
    );
    expect(res.body.error).toBe('insufficient_scope');
  });

  test('the 401 challenge names the required scopes, so the client asks for them', async () => {
    const api = await start(jwt.verifier(AUDIENCE), { requiredScopes: ['mcp:tools'] });
    const res = await post(api);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('scope="mcp:tools"');
  });

  test('a token with them passes', async () => {
    const api = await start(jwt.verifier(AUDIENCE), { requiredScopes: ['mcp:tools'] });
    const res = await post(api, `Bearer ${await jwt.sign({ scope: 'mcp:tools' })}`);
    expect(res.status).toBe(200);
  });
});

test('a valid token: req.auth reaches the tool as ctx.authInfo, and the session stays bound to its client', async () => {
  const api = await start(jwt.verifier(AUDIENCE));
  const token = await jwt.sign({ scope: 'mcp:tools profile', clientId: 'ada' });
  const init = await post(api, `Bearer ${token}`);
  expect(init.status).toBe(200);
  const sessionId = init.headers['mcp-session-id'];
  const headers = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': sessionId, Authorization: `Bearer ${token}` };
  const call = await api.post('/mcp').set(headers).send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  expect(call.status).toBe(200);
  expect(JSON.parse(call.body.result.content[0].text)).toEqual({ clientId: 'ada', scopes: ['mcp:tools', 'profile'] });

  // Another client's valid token cannot use ada's session.
  const other = await jwt.sign({ clientId: 'eve' });
  const stolen = await api.post('/mcp').set({ ...headers, Authorization: `Bearer ${other}` }).send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  expect(stolen.status).toBe(404);
});

test('the scheme name is case-insensitive', async () => {
  const api = await start(jwt.verifier(AUDIENCE));
  const res = await post(api, `bearer ${await jwt.sign()}`);
  expect(res.status).toBe(200);
});

test('misconfiguration fails at start-up with what to do', () => {
  expect(() => requireBearerAuth({} as never)).toThrow(/needs a verifier with a verifyAccessToken/);
  expect(() => requireBearerAuth({ verifier: jwtVerifierStub(), resourceMetadataUrl: '/relative' })).toThrow(/resourceMetadataUrl must be an absolute URL/);
});

function jwtVerifierStub(): OAuthTokenVerifier {
  return { verifyAccessToken: async (token) => ({ token, clientId: 'c', scopes: [] }) };
}
