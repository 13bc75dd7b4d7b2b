/**
 * `allowedHosts` replaces the loopback defaults; `LOOPBACK_HOSTS` is exported so a list can keep them, and the 403
 * says so. The everything example takes extra names from `ALLOWED_HOSTS`.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { LOOPBACK_HOSTS, McpServer, mcpMiddleware, type McpMiddlewareOptions } from '../../lib/index.js';
import { allowedHostsFrom } from '../../examples/everything/allowed-hosts';
import { ACCEPT_BOTH } from '../helpers/wire.js';

const HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function start(options: Partial<McpMiddlewareOptions>): Promise<string> {
  const app = express();
  const mcp = mcpMiddleware({ server: new McpServer({ name: 'hosts', version: '1.0.0' }), ...options });
  app.use(mcp);
  const http = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  close = async () => {
    await mcp.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const initWithHost = (url: string, host: string) => request(url).post('/mcp').set(HEADERS).set('Host', host).send(INITIALIZE);

test('LOOPBACK_HOSTS is the default list, and cannot be changed by accident', () => {
  expect(LOOPBACK_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]']);
  expect(Object.isFrozen(LOOPBACK_HOSTS)).toBe(true);
});

test('a list replaces the defaults: 127.0.0.1 gets a 403 that says how to keep the loopback names', async () => {
  const url = await start({ allowedHosts: ['mcp.example.com'] });
  expect((await initWithHost(url, 'mcp.example.com')).status).toBe(200);
  const local = await initWithHost(url, '127.0.0.1:3000');
  expect(local.status).toBe(403);
  expect(local.body.error.message).toContain('a list replaces the loopback defaults');
  expect(local.body.error.message).toContain("allowedHosts: [...LOOPBACK_HOSTS, 'your.host']");
});

test('[...LOOPBACK_HOSTS, name] serves the public name and the loopback names', async () => {
  const url = await start({ allowedHosts: [...LOOPBACK_HOSTS, 'mcp.example.com'] });
  for (const host of ['mcp.example.com', 'mcp.example.com:8443', '127.0.0.1:3000', 'localhost', '[::1]:80']) {
    expect((await initWithHost(url, host)).status).toBe(200);
  }
  expect((await initWithHost(url, 'evil.example')).status).toBe(403);
});

test('LOOPBACK_HOSTS itself is accepted as the list (a readonly array)', async () => {
  const url = await start({ allowedHosts: LOOPBACK_HOSTS });
  expect((await initWithHost(url, 'localhost:1')).status).toBe(200);
  expect((await initWithHost(url, 'mcp.example.com')).status).toBe(403);
});

describe('the everything example reads ALLOWED_HOSTS', () => {
  test('unset: the loopback names only', () => {
    expect(allowedHostsFrom(undefined)).toEqual([...LOOPBACK_HOSTS]);
    expect(allowedHostsFrom('')).toEqual([...LOOPBACK_HOSTS]);
  });

  test('a comma-separated list is added to the loopback names, and served', async () => {
    const allowedHosts = allowedHostsFrom(' 192.168.1.20 , mcp.example.com:8443,');
    expect(allowedHosts).toEqual([...LOOPBACK_HOSTS, '192.168.1.20', 'mcp.example.com:8443']);
    const url = await start({ allowedHosts });
    expect((await initWithHost(url, '192.168.1.20:3000')).status).toBe(200);
    expect((await initWithHost(url, 'mcp.example.com:8443')).status).toBe(200);
    expect((await initWithHost(url, 'mcp.example.com:443')).status).toBe(403);
    expect((await initWithHost(url, '127.0.0.1:3000')).status).toBe(200);
  });
});
