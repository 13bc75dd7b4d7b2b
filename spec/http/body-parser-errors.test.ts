/**
 * `express.json()` mounted before the middleware (the most common Express setup): the errors it raises for the MCP
 * path reach `mcp.errorHandler` and become JSON-RPC errors; everything else goes on to the app's own handlers.
 */
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { McpServer, mcpMiddleware, type McpRequestHandler } from '../../lib/index.js';
import { listenApp } from '../helpers/serve.js';
import { ACCEPT_BOTH, toolCall } from '../helpers/wire.js';

const HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };

function buildServer(): McpServer {
  const server = new McpServer({ name: 'body-parser', version: '1.0.0' });
  server.tool('measure', { description: 'Length of the text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: String(text.length) }],
  }));
  return server;
}

interface App {
  url: string;
  appErrors: unknown[];
  close(): Promise<void>;
}

/** An app with `parser` first, then the middleware and its error handler, then an app error handler. */
async function start(parser: express.RequestHandler, mount: (app: express.Express, mcp: McpRequestHandler) => void = (app, mcp) => app.use(mcp, mcp.errorHandler)): Promise<App> {
  const app = express();
  const appErrors: unknown[] = [];
  const mcp = mcpMiddleware({ server: buildServer(), enableJsonResponse: true });
  app.use(parser);
  mount(app, mcp);
  app.post('/other', (_req, res) => res.json({ ok: true }));
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    appErrors.push(error);
    res.status(599).json({ handledBy: 'app' });
  });
  return { ...(await listenApp(app, mcp)), appErrors };
}

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** initialize + notifications/initialized; returns the session id. */
async function openSession(url: string, path = '/mcp'): Promise<string> {
  const init = await request(url)
    .post(path)
    .set(HEADERS)
    .send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  expect(init.status).toBe(200);
  const sessionId = init.headers['mcp-session-id'] as string;
  const ack = await request(url).post(path).set(HEADERS).set('Mcp-Session-Id', sessionId).send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(ack.status).toBe(202);
  return sessionId;
}

const bigText = 'x'.repeat(200 * 1024);

describe('express.json() with its default 100kb limit before the middleware', () => {
  test('a 200 KB tools/call gets a JSON-RPC 413 naming express.json({ limit }), not an HTML page', async () => {
    app = await start(express.json());
    const sessionId = await openSession(app.url);
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Mcp-Session-Id', sessionId).send(toolCall(1, 'measure', { text: bigText }));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('express.json({ limit') } });
    expect(res.body.error.message).toMatch(/^Payload Too Large: the request body exceeds the 102400-byte limit/);
    expect(res.text).not.toMatch(/<html|at \w+ \(/i);
    expect(app.appErrors).toEqual([]);
  });

  test('malformed JSON gets 400 / -32700 with no stack trace', async () => {
    app = await start(express.json());
    const res = await request(app.url).post('/mcp').set(HEADERS).send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: the body is not valid JSON/) } });
    expect(res.text).not.toMatch(/SyntaxError: |at \w+ \(/);
  });

  test('with the path trailing a slash, the error is still ours', async () => {
    app = await start(express.json());
    const res = await request(app.url).post('/mcp/').set(HEADERS).send('{nope');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });

  test('errors of other paths go on to the app error handler', async () => {
    app = await start(express.json());
    const res = await request(app.url).post('/other').set('Content-Type', 'application/json').send('{nope');
    expect(res.status).toBe(599);
    expect(res.body).toEqual({ handledBy: 'app' });
    expect(app.appErrors).toHaveLength(1);
    expect((app.appErrors[0] as { type: string }).type).toBe('entity.parse.failed');
  });

  test('errors that are not the body parser\'s go on to the app error handler, on the MCP path too', async () => {
    const failing = new Error('database down');
    app = await start((req, _res, next) => next(req.path === '/mcp' ? failing : undefined));
    const res = await request(app.url).post('/mcp').set(HEADERS).send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(599);
    expect(app.appErrors).toEqual([failing]);
  });

  test('without mcp.errorHandler, Express answers the parser error itself (why the handler is needed)', async () => {
    app = await start(express.json(), (a, mcp) => a.use(mcp));
    const res = await request(app.url).post('/mcp').set(HEADERS).send('{nope');
    // The app's own error handler got it: the middleware (three arguments) never sees a parser's error.
    expect(res.status).toBe(599);
    expect(app.appErrors).toHaveLength(1);
  });
});

describe('express.json({ limit }) raised above the body size', () => {
  test('a 200 KB tools/call is served, and the middleware takes the parsed req.body', async () => {
    app = await start(express.json({ limit: '1mb' }));
    const sessionId = await openSession(app.url);
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Mcp-Session-Id', sessionId).send(toolCall(1, 'measure', { text: bigText }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: String(bigText.length) }] } });
  });
});

describe('mounted under a prefix', () => {
  test("app.use('/mcp', mcp) serves /mcp itself (the prefix names the endpoint)", async () => {
    app = await start((_req, _res, next) => next(), (a, mcp) => a.use('/mcp', mcp));
    const sessionId = await openSession(app.url, '/mcp');
    const res = await request(app.url).post('/mcp').set(HEADERS).set('Mcp-Session-Id', sessionId).send(toolCall(1, 'measure', { text: 'abc' }));
    expect(res.body.result.content[0].text).toBe('3');
  });

  test("app.use('/api', mcp) serves /api/mcp, and /api goes on to the app", async () => {
    app = await start((_req, _res, next) => next(), (a, mcp) => a.use('/api', mcp));
    await openSession(app.url, '/api/mcp');
    const res = await request(app.url).post('/api').set(HEADERS).send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(404);
  });

  test("app.use('/mcp', mcp, mcp.errorHandler) after express.json() turns the parser's errors into JSON-RPC errors", async () => {
    app = await start(express.json(), (a, mcp) => a.use('/mcp', mcp, mcp.errorHandler));
    const res = await request(app.url).post('/mcp').set(HEADERS).send('{nope');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });
});
