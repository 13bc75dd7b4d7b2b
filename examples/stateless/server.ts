import { McpServer, mcpMiddleware } from 'mcp-express';
import { z } from 'zod';
import { serveMcp, type RunningExample } from '../basic/server';

export type { RunningExample };

/** Tools that need no memory between requests: any instance behind a load balancer can answer any request. */
export function createStatelessServer(): McpServer {
  const server = new McpServer({ name: 'stateless', version: '1.0.0' });
  server.tool('uppercase', { description: 'Upper-cases a text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  server.tool('count', { description: 'Counts to n, reporting progress', inputSchema: { n: z.number().int().min(1).max(100) } }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) await ctx.progress(i, n);
    return { content: [{ type: 'text', text: `counted to ${n}` }] };
  });
  return server;
}

/**
 * No sessions at all: 2025-era clients are served statelessly too (`legacySessions: false`: no Mcp-Session-Id, GET
 * and DELETE answer 405), and 2026-07-28 requests are stateless anyway. Nothing to share between instances and no
 * session to expire, so clients that never DELETE cost nothing.
 */
export async function startStatelessExample(options: { port: number; host: string }): Promise<RunningExample> {
  return serveMcp(mcpMiddleware({ server: createStatelessServer(), legacySessions: false }), options);
}
