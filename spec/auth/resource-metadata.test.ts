/**
 * protectedResourceMetadataRouter (RFC 9728) on a real Express app: both well-known URLs, the document's shape,
 * CORS and methods; getOAuthProtectedResourceMetadataUrl; configuration errors.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { getOAuthProtectedResourceMetadataUrl, protectedResourceMetadataRouter, type ProtectedResourceMetadataOptions } from '../../lib/index.js';

let http: Server | undefined;

afterEach(async () => {
  if (http) await new Promise<void>((resolve) => http!.close(() => resolve()));
  http = undefined;
});

async function start(options: ProtectedResourceMetadataOptions): Promise<request.Agent> {
  const app = express();
  app.use(protectedResourceMetadataRouter(options));
  app.use((_req, res) => res.status(404).json({ fallthrough: true }));
  http = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  return request.agent(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
}

const OPTIONS: ProtectedResourceMetadataOptions = {
  resourceServerUrl: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://auth.example.com'],
  scopesSupported: ['mcp:tools', 'mcp:admin'],
  resourceName: 'Example MCP server',
  serviceDocumentationUrl: 'https://docs.example.com/mcp',
};

const DOCUMENT = {
  resource: 'https://mcp.example.com/mcp',
  authorization_servers: ['https://auth.example.com'],
  bearer_methods_supported: ['header'],
  scopes_supported: ['mcp:tools', 'mcp:admin'],
  resource_name: 'Example MCP server',
  resource_documentation: 'https://docs.example.com/mcp',
};

test.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])('GET %s: the RFC 9728 document, readable from any origin', async (path) => {
  const api = await start(OPTIONS);
  const res = await api.get(path).set('Origin', 'https://app.example.org');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.body).toEqual(DOCUMENT);
});

test('only the documented fields by default; extraMetadata adds more', async () => {
  const api = await start({
    resourceServerUrl: new URL('http://127.0.0.1:3000/mcp'),
    authorizationServers: [new URL('http://127.0.0.1:4000'), 'https://second.example'],
    extraMetadata: { dpop_bound_access_tokens_required: false },
  });
  const res = await api.get('/.well-known/oauth-protected-resource/mcp');
  expect(res.body).toEqual({
    resource: 'http://127.0.0.1:3000/mcp',
    authorization_servers: ['http://127.0.0.1:4000/', 'https://second.example'],
    bearer_methods_supported: ['header'],
    dpop_bound_access_tokens_required: false,
  });
});

test('a resource at the root is served at the bare well-known path only', async () => {
  const api = await start({ ...OPTIONS, resourceServerUrl: 'https://mcp.example.com/' });
  expect((await api.get('/.well-known/oauth-protected-resource')).body.resource).toBe('https://mcp.example.com/');
  expect((await api.get('/.well-known/oauth-protected-resource/mcp')).body).toEqual({ fallthrough: true });
});

test('other paths go on to the next middleware', async () => {
  const api = await start(OPTIONS);
  expect((await api.get('/.well-known/oauth-protected-resource/other')).body).toEqual({ fallthrough: true });
  expect((await api.get('/.well-known/oauth-authorization-server')).body).toEqual({ fallthrough: true });
  expect((await api.get('/mcp')).body).toEqual({ fallthrough: true });
});

test('HEAD and the CORS preflight are answered; POST gets 405 with Allow', async () => {
  const api = await start(OPTIONS);
  const head = await api.head('/.well-known/oauth-protected-resource/mcp');
  expect(head.status).toBe(200);
  expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(DOCUMENT)));
  const preflight = await api.options('/.well-known/oauth-protected-resource/mcp').set('Origin', 'https://app.example.org').set('Access-Control-Request-Method', 'GET');
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('*');
  expect(preflight.headers['access-control-allow-methods']).toContain('GET');
  const post = await api.post('/.well-known/oauth-protected-resource/mcp').send({});
  expect(post.status).toBe(405);
  expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
  expect(post.body.error).toBe('method_not_allowed');
});

test('getOAuthProtectedResourceMetadataUrl: the path-suffixed well-known URL of an MCP endpoint', () => {
  expect(getOAuthProtectedResourceMetadataUrl('https://api.example.com/mcp')).toBe('https://api.example.com/.well-known/oauth-protected-resource/mcp');
  expect(getOAuthProtectedResourceMetadataUrl(new URL('http://127.0.0.1:3000/v1/mcp/'))).toBe('http://127.0.0.1:3000/.well-known/oauth-protected-resource/v1/mcp');
  expect(getOAuthProtectedResourceMetadataUrl('https://api.example.com')).toBe('https://api.example.com/.well-known/oauth-protected-resource');
  expect(getOAuthProtectedResourceMetadataUrl('https://api.example.com/mcp?x=1#frag')).toBe('https://api.example.com/.well-known/oauth-protected-resource/mcp');
});

test('configuration errors say what is needed', () => {
  expect(() => protectedResourceMetadataRouter({ authorizationServers: ['https://a.example'] } as never)).toThrow(/needs resourceServerUrl/);
  expect(() => protectedResourceMetadataRouter({ resourceServerUrl: 'https://a.example/mcp', authorizationServers: [] })).toThrow(/needs authorizationServers/);
  expect(() => protectedResourceMetadataRouter({ resourceServerUrl: '/mcp', authorizationServers: ['https://a.example'] })).toThrow(/resourceServerUrl must hold absolute URLs/);
  expect(() => protectedResourceMetadataRouter({ resourceServerUrl: 'https://a.example/mcp#x', authorizationServers: ['https://a.example'] })).toThrow(/fragment/);
  expect(() => protectedResourceMetadataRouter({ resourceServerUrl: 'https://a.example/mcp', authorizationServers: ['auth'] })).toThrow(/authorizationServers must hold absolute URLs/);
});
