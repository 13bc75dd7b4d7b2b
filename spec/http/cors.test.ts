/**
 * The `cors` option: preflights answered for the MCP path (also before auth, through `mcp.cors`), the MCP response
 * headers exposed to pages of the listed origins, and those origins accepted by the Origin check.
 */
import express from 'express';
import request from 'supertest';
import { InvalidTokenError, McpServer, mcpMiddleware, requireBearerAuth, type McpMiddlewareOptions, type McpRequestHandler } from '../../lib/index.js';
import { listenApp, type ListeningApp } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

const APP_ORIGIN = 'https://app.example.com';
const HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

type App = ListeningApp;

async function start(options: Partial<McpMiddlewareOptions>, mount: (app: express.Express, mcp: McpRequestHandler) => void = (app, mcp) => app.use(mcp)): Promise<App> {
  const app = express();
  const mcp = mcpMiddleware({ server: new McpServer({ name: 'cors', version: '1.0.0' }), ...options });
  mount(app, mcp);
  return listenApp(app, mcp);
}

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const preflight = (url: string, origin: string, requestHeaders = 'content-type, mcp-protocol-version, mcp-param-region') =>
  request(url).options('/mcp').set({ Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requestHeaders });

describe('cors: { origins }', () => {
  test('a preflight from a listed origin gets 204 with the methods, the requested headers and a max age', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } });
    const res = await preflight(app.url, APP_ORIGIN);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    // Mcp-Param-* names vary per tool: the requested headers come back.
    expect(res.headers['access-control-allow-headers']).toBe('content-type, mcp-protocol-version, mcp-param-region');
    expect(res.headers['access-control-max-age']).toBe('7200');
    expect(res.headers['vary']).toBe('Origin, Access-Control-Request-Headers');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.text).toBe('');
  });

  test('a preflight naming no headers gets the headers MCP clients send', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN], maxAge: 60, credentials: true } });
    const res = await request(app.url).options('/mcp').set({ Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'DELETE' });
    expect(res.status).toBe(204);
    for (const name of ['Content-Type', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID', 'Mcp-Method', 'Mcp-Name']) {
      expect(res.headers['access-control-allow-headers'].split(', ')).toContain(name);
    }
    expect(res.headers['access-control-max-age']).toBe('60');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  test('a preflight from another origin gets 403 naming cors.origins, with no CORS grant', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } });
    const res = await preflight(app.url, 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('cors.origins') } });
  });

  test('a POST from a listed origin passes the Origin check (the origins are allowed) and exposes the MCP headers', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN + '/'] } });
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Origin', APP_ORIGIN).send(INITIALIZE);
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toBeDefined();
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-expose-headers']).toBe('Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After');
    expect(res.headers['vary']).toBe('Origin');
  });

  test('the cors origins are added to an explicit allowedOrigins list', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] }, allowedOrigins: ['https://other.example.com'] });
    const fromCors = await request(app.url).post('/mcp').set(HEADERS).set('Origin', APP_ORIGIN).send(INITIALIZE);
    expect(fromCors.status).toBe(200);
    const fromList = await request(app.url).post('/mcp').set(HEADERS).set('Origin', 'https://other.example.com').send(INITIALIZE);
    expect(fromList.status).toBe(200);
    // Allowed by the Origin check, but not a CORS origin: no grant for the browser.
    expect(fromList.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('a POST from an origin in neither list gets the Origin check\'s 403 and no CORS grant', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } });
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Origin', 'https://evil.example').send(INITIALIZE);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/^Forbidden: Origin "https:\/\/evil.example" is not allowed/);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('other paths get no CORS headers', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } }, (a, mcp) => {
      a.use(mcp.cors);
      a.use(mcp);
      a.options('/elsewhere', (_req, res) => res.status(299).end());
    });
    const res = await request(app.url).options('/elsewhere').set({ Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'POST' });
    expect(res.status).toBe(299);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test.each([
    [{ origins: [] }],
    [{ origins: ['app.example.com'] }],
    [{ origins: ['https://app.example.com/path'] }],
    [{ origins: [APP_ORIGIN], maxAge: -1 }],
    [{}],
  ])('an invalid cors option %j throws a TypeError at construction', (cors) => {
    expect(() => mcpMiddleware({ server: new McpServer({ name: 'x', version: '1' }), cors: cors as never })).toThrow(TypeError);
  });

  test('cors is a known option (no unknown-option warning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const mcp = mcpMiddleware({ server: new McpServer({ name: 'x', version: '1' }), cors: { origins: [APP_ORIGIN] } });
      await mcp.close();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => /unknown option/.test(w.message))).toEqual([]);
  });
});

describe('without the cors option', () => {
  test('a preflight gets 405 and no CORS headers (nothing is granted by default)', async () => {
    app = await start({}, (a, mcp) => a.use(mcp.cors, mcp));
    const res = await preflight(app.url, 'http://localhost:5173');
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('with auth between mcp.cors and the middleware', () => {
  const verifier = {
    async verifyAccessToken(token: string) {
      if (token !== 'good-token') throw new InvalidTokenError('unknown token');
      return { token, clientId: 'client-1', scopes: ['mcp'] };
    },
  };
  const mountWithAuth = (a: express.Express, mcp: McpRequestHandler) => {
    a.use(mcp.cors);
    a.use('/mcp', requireBearerAuth({ verifier, resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' }));
    a.use(mcp);
  };

  test('the preflight is answered before auth (a preflight carries no token)', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } }, mountWithAuth);
    const res = await preflight(app.url, APP_ORIGIN, 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type');
  });

  test("auth's 401 carries the CORS grant, so the page can read WWW-Authenticate", async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } }, mountWithAuth);
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Origin', APP_ORIGIN).send(INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*resource_metadata=/);
  });

  test('with a token, the call goes through and the answer carries the grant once', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } }, mountWithAuth);
    const res = await request(app.url).post('/mcp').set(HEADERS).set({ Origin: APP_ORIGIN, Authorization: 'Bearer good-token' }).send(INITIALIZE);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['vary']).toBe('Origin');
  });

  test('the errorHandler labels a body-parser error with the grant too', async () => {
    app = await start({ cors: { origins: [APP_ORIGIN] } }, (a, mcp) => {
      a.use(express.json());
      a.use(mcp, mcp.errorHandler);
    });
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Origin', APP_ORIGIN).send('{nope');
    expect(res.status).toBe(400);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });
});
