import express from 'express';
import { mcpMiddleware } from 'mcp-express';
import { allowedHostsFrom } from './allowed-hosts';
import { createEverythingServer } from './server';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
// MCP_LEGACY_SESSIONS=0 serves 2025-era clients statelessly too (no Mcp-Session-Id, GET/DELETE → 405).
const legacySessions = process.env.MCP_LEGACY_SESSIONS !== '0';
// ALLOWED_HOSTS=192.168.1.20,mcp.example.com: Host names served besides the loopback ones (with HOST=0.0.0.0).
const allowedHosts = allowedHostsFrom(process.env.ALLOWED_HOSTS);

const app = express();
app.use(mcpMiddleware({ server: createEverythingServer(), legacySessions, allowedHosts }));
app.listen(port, host, () => {
  console.log(`MCP server "everything" listening on http://${host}:${port}/mcp (${legacySessions ? 'with' : 'without'} 2025-era sessions)`);
});
