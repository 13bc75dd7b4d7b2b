import express from 'express';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { mcpMiddleware } from '../../lib/index.js';
import { ACCEPT_BOTH, buildServer, type Harness, initializeRequest, startHarness } from '../helpers/http-helpers.js';

const INIT_HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };

describe('methods and paths', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    // Registered after the middleware: reached only through next().
    h.app.get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    h.app.all('/mcp/extra', (_req, res) => {
      res.status(299).send('extra');
    });
    h.app.put('/mcpx', (_req, res) => {
      res.status(298).send('mcpx');
    });
  });
  afterAll(() => h.close());

  test.each(['put', 'patch', 'options'] as const)('%s /mcp → 405 with Allow: GET, POST, DELETE', async (method) => {
    const res = await h.api()[method]('/mcp');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST, DELETE');
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Method Not Allowed') } });
  });

  test('HEAD /mcp → 405 with Allow and no body', async () => {
    const res = await h.api().head('/mcp');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST, DELETE');
    expect(res.text ?? '').toBe('');
  });

  test('other paths fall through to the app (next())', async () => {
    const health = await h.api().get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true });
    expect((await h.api().post('/mcp/extra').set(INIT_HEADERS).send(initializeRequest('2025-11-25'))).status).toBe(299);
    expect((await h.api().put('/mcpx')).status).toBe(298);
    const missing = await h.api().post('/nothing-here').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
    expect(missing.status).toBe(404);
    expect(missing.headers['mcp-session-id']).toBeUndefined();
  });

  test('/mcp/ (trailing slash) and /mcp?query are the endpoint', async () => {
    const slash = await h.api().post('/mcp/').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
    expect(slash.status).toBe(200);
    expect(slash.headers['mcp-session-id']).toBeDefined();
    const query = await h.api().post('/mcp?client=x').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
    expect(query.status).toBe(200);
    expect(query.headers['mcp-session-id']).toBeDefined();
  });

  test('the Host guard runs before method dispatch (evil Host + PUT → 403, not 405)', async () => {
    const res = await h.api().put('/mcp').set('Host', 'evil.example');
    expect(res.status).toBe(403);
  });
});

describe('a custom path and a mount point', () => {
  test('path: "/rpc" serves /rpc; /mcp falls through', async () => {
    const h = await startHarness({ path: '/rpc' });
    try {
      const rpc = await h.api().post('/rpc').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
      expect(rpc.status).toBe(200);
      expect(rpc.headers['mcp-session-id']).toBeDefined();
      const mcp = await h.api().post('/mcp').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
      expect(mcp.status).toBe(404);
    } finally {
      await h.close();
    }
  });

  test('mounted with app.use("/api", …) the endpoint is /api/mcp', async () => {
    const app = express();
    const middleware = mcpMiddleware({ server: buildServer().server });
    app.use('/api', middleware);
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const api = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const res = await api.post('/api/mcp').set(INIT_HEADERS).send(initializeRequest('2025-11-25'));
      expect(res.status).toBe(200);
      expect(res.headers['mcp-session-id']).toBeDefined();
      expect((await api.post('/mcp').set(INIT_HEADERS).send(initializeRequest('2025-11-25'))).status).toBe(404);
    } finally {
      await middleware.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
