import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, mcpMiddleware, type McpRequestHandler } from 'mcp-express';
import { z } from 'zod';

/** The smallest useful server: one tool, one resource template, one prompt. */
export function createBasicServer(): McpServer {
  const server = new McpServer({ name: 'basic', version: '1.0.0' });
  server.tool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.resourceTemplate('greeting', 'greeting://{name}', { description: 'A greeting', mimeType: 'text/plain' }, (uri, { name }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${name}!` }],
  }));
  server.prompt('review', { description: 'Asks for a code review', argsSchema: { code: z.string() } }, ({ code }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please review:\n${code}` } }],
  }));
  return server;
}

export interface RunningExample {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** Serves the basic server at `/mcp` with sessions (the 2025 era) and 2026-07-28 stateless requests. */
export async function startBasicExample(options: { port: number; host: string }): Promise<RunningExample> {
  return serveMcp(mcpMiddleware({ server: createBasicServer() }), options);
}

/** Mounts an MCP middleware on a new Express app and listens; `close()` closes the middleware, then the server. */
export async function serveMcp(mcp: McpRequestHandler, options: { port: number; host: string }): Promise<RunningExample> {
  const app = express();
  app.use(mcp);
  const http = await listen(app, options.port, options.host);
  return {
    url: `http://${urlHost(options.host)}:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      await mcp.close();
      await closeHttp(http);
    },
  };
}

export function listen(app: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const http = app.listen(port, host, () => resolve(http));
    http.once('error', reject);
  });
}

export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Closes a listening server now: open connections (idle keep-alives, SSE streams) are cut, not waited for. */
export function closeHttp(http: Server): Promise<void> {
  http.closeAllConnections();
  return new Promise((resolve) => http.close(() => resolve()));
}
