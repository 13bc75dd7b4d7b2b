import express from 'express';
import { mcpMiddleware } from 'mcp-express';
import { createEverythingServer } from './server';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';

const app = express();
app.use(mcpMiddleware({ server: createEverythingServer() }));
app.listen(port, host, () => {
  console.log(`MCP server "everything" listening on http://${host}:${port}/mcp`);
});
