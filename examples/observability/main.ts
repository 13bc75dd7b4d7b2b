import express from 'express';
import { LocalSessionManager, McpServer, mcpMiddleware } from 'mcp-express';
import pino from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { z } from 'zod';
import { mcpLogging } from './logging';
import { mcpMetrics } from './metrics';

// npm run build && node dist/examples/observability/main.js: metrics on GET /metrics, JSON log lines on stdout.
const server = new McpServer({ name: 'observed', version: '1.0.0' });
server.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const metrics = mcpMetrics(registry);
const logging = mcpLogging(pino());

const mcp = mcpMiddleware({
  server,
  sessionManager: new LocalSessionManager(),
  onError: logging.onError,
  onEvent: (event) => {
    metrics(event);
    logging.onEvent(event);
  },
});

const app = express();
app.get('/metrics', async (_req, res) => {
  res.type(registry.contentType).send(await registry.metrics());
});
app.use(mcp);
const port = Number(process.env.PORT ?? 3000);
const listener = app.listen(port, '127.0.0.1', () => console.log(`MCP on http://127.0.0.1:${port}/mcp, metrics on /metrics`));
process.once('SIGTERM', () => void mcp.close().then(() => listener.close()));
