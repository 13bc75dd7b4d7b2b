/**
 * resources/read refuses a params.uri longer than MAX_URI_LENGTH with -32602, before it is matched against any
 * template; URIs up to the limit, adversarial ones included, are matched (in linear time) as before.
 */
import express from 'express';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, mcpMiddleware, UriTemplate } from '../../lib/index.js';
import { MAX_URI_LENGTH, ResourceRegistry } from '../../lib/server/resource-registry.js';
import type { RequestContext } from '../../lib/server/request-context.js';
import { modern } from '../helpers/modern.js';
import { RawClient } from '../helpers/raw-client.js';
import { serve, type Served } from '../helpers/serve.js';
import { sseMessages } from '../helpers/sse.js';

const TEMPLATE_PREFIX = 'test://template/';
const TEMPLATE_SUFFIX = '/data';
/** A URI of exactly `length` characters that `test://template/{id}/data` matches. */
const templateUri = (length: number): string => TEMPLATE_PREFIX + 'x'.repeat(length - TEMPLATE_PREFIX.length - TEMPLATE_SUFFIX.length) + TEMPLATE_SUFFIX;

function buildServer(reads: string[]): McpServer {
  const server = new McpServer({ name: 'uri-limit', version: '1.0.0' });
  server.resourceTemplate('template', `${TEMPLATE_PREFIX}{id}${TEMPLATE_SUFFIX}`, { mimeType: 'text/plain' }, (uri, { id }) => {
    reads.push(id);
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `id of ${id.length} characters` }] };
  });
  server.resourceTemplate('files', 'file:///{+dir}/{+file}.md', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'file' }] }));
  server.resourceTemplate('adjacent', 'id://{a}{b}{c}', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'id' }] }));
  return server;
}

afterEach(() => jest.restoreAllMocks());

test('MAX_URI_LENGTH is 16384', () => {
  expect(MAX_URI_LENGTH).toBe(16384);
});

test('ResourceRegistry.read refuses an over-long URI before matching any template', async () => {
  const registry = new ResourceRegistry(() => {});
  const read = jest.fn(() => ({ contents: [] }));
  registry.registerTemplate('any', 'test://{+rest}', {}, read);
  const matchSpy = jest.spyOn(UriTemplate.prototype, 'match');
  const ctx = {} as RequestContext;
  const uri = `test://${'a'.repeat(MAX_URI_LENGTH)}`;
  await expect(registry.read({ uri }, ctx, -32002)).rejects.toMatchObject({ name: 'McpError', code: -32602, message: expect.stringContaining(String(MAX_URI_LENGTH)) });
  expect(matchSpy).not.toHaveBeenCalled();
  expect(read).not.toHaveBeenCalled();
  // One character shorter is matched and read as usual.
  await expect(registry.read({ uri: uri.slice(0, MAX_URI_LENGTH) }, ctx, -32002)).resolves.toEqual({ contents: [] });
  expect(matchSpy).toHaveBeenCalledTimes(1);
});

describe('through the middleware, 2025-11-25 session', () => {
  let served: Served;
  let client: RawClient;
  const reads: string[] = [];
  beforeAll(async () => {
    served = await serve({ server: buildServer(reads), sseKeepAlive: 0 });
    client = new RawClient(served.url, '2025-11-25');
    await client.initialize();
  });
  afterAll(() => served.close());

  const readResource = async (id: number, uri: string) => {
    const { status, body } = await client.call({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } });
    expect(status).toBe(200);
    const messages = sseMessages(body);
    return messages[messages.length - 1];
  };

  test('a URI one character over the limit gets -32602 naming the limit, and no handler runs', async () => {
    reads.length = 0;
    const reply = await readResource(10, templateUri(MAX_URI_LENGTH + 1));
    expect(reply).toMatchObject({ id: 10, error: { code: -32602, data: { maxUriLength: MAX_URI_LENGTH } } });
    expect(reply.error.message).toContain(String(MAX_URI_LENGTH));
    expect(reply.result).toBeUndefined();
    expect(reads).toEqual([]);
  });

  test('a URI at the limit is read', async () => {
    reads.length = 0;
    const reply = await readResource(11, templateUri(MAX_URI_LENGTH));
    expect(reply).toMatchObject({ id: 11, result: { contents: [{ mimeType: 'text/plain' }] } });
    expect(reads).toHaveLength(1);
    expect(reads[0]).toHaveLength(MAX_URI_LENGTH - TEMPLATE_PREFIX.length - TEMPLATE_SUFFIX.length);
  });

  test('adversarial URIs at the limit are matched, not found, and answered', async () => {
    const overSlashes = `file:///${'/'.repeat(MAX_URI_LENGTH - 'file:///'.length - 1)}x`;
    const overLetters = `id://${'a'.repeat(MAX_URI_LENGTH - 'id://'.length - 1)}/`;
    for (const [id, uri] of [[12, overSlashes], [13, overLetters]] as const) {
      expect(uri).toHaveLength(MAX_URI_LENGTH);
      expect(await readResource(id, uri)).toMatchObject({ id, error: { code: -32002, data: { uri } } });
    }
  });
});

describe('through the middleware, 2026-07-28 (no session)', () => {
  // Mcp-Name mirrors params.uri in a header, which Node's default 16 KB header limit would refuse first (431);
  // a deployment that raises that limit still gets the resources/read limit.
  let httpServer: Server;
  let middleware: ReturnType<typeof mcpMiddleware>;
  let port: number;
  beforeAll(async () => {
    const app = express();
    middleware = mcpMiddleware({ server: buildServer([]), sseKeepAlive: 0 });
    app.use(middleware);
    httpServer = http.createServer({ maxHeaderSize: 256 * 1024 }, app);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    port = (httpServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await middleware.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  });

  test('an over-long URI gets -32602 naming the limit', async () => {
    const reply = await modern(port, { id: 20, method: 'resources/read', params: { uri: templateUri(MAX_URI_LENGTH + 1) } });
    expect(reply.final).toMatchObject({ id: 20, error: { code: -32602, data: { maxUriLength: MAX_URI_LENGTH } } });
    expect(reply.final.error.message).toContain(String(MAX_URI_LENGTH));
    expect(reply.final.result).toBeUndefined();
  });

  test('a URI at the limit is read', async () => {
    const reply = await modern(port, { id: 21, method: 'resources/read', params: { uri: templateUri(MAX_URI_LENGTH) } });
    expect(reply.final).toMatchObject({ id: 21, result: { resultType: 'complete', contents: [{ mimeType: 'text/plain' }] } });
  });
});

test('a URI a template matches but that is not a valid URL is -32602, not a handler failure', async () => {
  const { McpServer: Server } = await import('../../lib/index.js');
  const { serve: serveApp } = await import('../helpers/serve.js');
  const server = new Server({ name: 'templates', version: '1.0.0' });
  server.resourceTemplate('any', 'test://{+path}', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'x' }] }));
  const served = await serveApp({ server, sseKeepAlive: 0 });
  try {
    const reply = await fetch(served.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'resources/read', 'Mcp-Name': 'test://a b/c' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'test://a b/c', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringContaining('not a valid URI') } });
  } finally {
    await served.close();
  }
});
