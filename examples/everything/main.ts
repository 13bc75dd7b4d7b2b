import express from 'express';
import { mcpMiddleware } from 'mcp-express';
import { allowedHostsFrom } from './allowed-hosts';
import { createBackend } from './backend';
import { createEverythingServer } from './server';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
// MCP_LEGACY_SESSIONS=0 serves 2025-era clients statelessly too (no Mcp-Session-Id, GET/DELETE → 405).
const legacySessions = process.env.MCP_LEGACY_SESSIONS !== '0';
// ALLOWED_HOSTS=192.168.1.20,mcp.example.com: Host names served besides the loopback ones (with HOST=0.0.0.0).
const allowedHosts = allowedHostsFrom(process.env.ALLOWED_HOSTS);
// DRAIN_TIMEOUT_MS: how long running calls may finish after SIGTERM (default 10 s).
const drainTimeout = process.env.DRAIN_TIMEOUT_MS === undefined ? undefined : Number(process.env.DRAIN_TIMEOUT_MS);

async function main(): Promise<void> {
  // REDIS_URL or REDIS_CLUSTER_NODES: sessions, events, leases, tasks and the bus in Redis (see backend.ts).
  const backend = await createBackend(legacySessions);
  const server = createEverythingServer({ taskStore: backend.taskStore });
  // MCP_REQUEST_STATE_SECRET: the key that signs 2026-07-28 requestState; every instance of a cluster needs the same.
  const requestStateSecret = process.env.MCP_REQUEST_STATE_SECRET || undefined;
  const mcp = mcpMiddleware({ server, legacySessions, allowedHosts, sessionManager: backend.sessionManager, bus: backend.bus, requestStateSecret });
  await mcp.ready();
  const app = express();
  app.use(mcp);
  const http = app.listen(port, host, () => {
    console.log(`MCP server "everything" listening on http://${host}:${port}/mcp (${legacySessions ? 'with' : 'without'} 2025-era sessions, ${backend.description})`);
  });

  // SIGTERM (orchestrators) and SIGINT (Ctrl-C): drain, then exit. New requests get 503 at once, open streams are
  // handed to other instances, running calls get drainTimeout to finish.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: draining`);
    await mcp.close({ drainTimeout });
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await backend.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
