/**
 * npm run example:cluster — several instances of the "everything" example sharing one Redis, behind a round-robin
 * proxy with no affinity: every request of a client may land on another instance, and everything still works
 * (sessions, resumes, elicitation answers, cancellations, list_changed, tasks), because sessions, events, stream
 * leases, tasks and the message bus live in Redis. For local trials; docs/deployment.md has the nginx and HAProxy
 * configurations for production.
 *
 * INSTANCES     how many instances (default 3)
 * PORT, HOST    where the proxy listens (default 3000 on 127.0.0.1)
 * INSTANCE_PORT the first instance's port, the others follow (default PORT + 1)
 * REDIS_URL     the Redis they share (default redis://127.0.0.1:6379); REDIS_CLUSTER_NODES for a Redis Cluster
 * MCP_REQUEST_STATE_SECRET  the requestState secret of every instance (default: a random one per cluster run)
 * Every other variable reaches the instances as it is (DRAIN_TIMEOUT_MS, LEASE_TTL_MS, MCP_LEGACY_SESSIONS…).
 *
 * SIGINT (Ctrl-C) or SIGTERM: every instance gets SIGTERM and drains; the proxy exits once all have exited.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { spawnInstances, stopInstances, waitUntilListening, type Instance } from './instances';
import { startRoundRobinProxy, STATS_PATH, type RoundRobinProxy } from './round-robin-proxy';

const count = Number(process.env.INSTANCES ?? 3);
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const firstInstancePort = Number(process.env.INSTANCE_PORT ?? port + 1);
const redisEnv: NodeJS.ProcessEnv = process.env.REDIS_CLUSTER_NODES ? {} : { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
// One requestState secret for every instance (a multi-round-trip retry may land on any of them), unless given.
const secretEnv: NodeJS.ProcessEnv = { MCP_REQUEST_STATE_SECRET: process.env.MCP_REQUEST_STATE_SECRET ?? randomBytes(32).toString('base64url') };

async function main(): Promise<void> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`INSTANCES must be a whole number of at least 1 (got ${process.env.INSTANCES}).`);
  if (port !== 0 && firstInstancePort <= port && port < firstInstancePort + count) {
    throw new Error(`The instances' ports ${firstInstancePort}-${firstInstancePort + count - 1} include the proxy's port ${port}: change INSTANCE_PORT or PORT.`);
  }
  let stopping = false;
  let proxy: RoundRobinProxy | undefined;
  const upstreams = Array.from({ length: count }, (_, i) => ({ host: '127.0.0.1', port: firstInstancePort + i, up: true }));
  const instances = spawnInstances({
    main: path.join(__dirname, '..', 'everything', 'main.js'),
    count,
    firstPort: firstInstancePort,
    host: '127.0.0.1',
    env: { ...redisEnv, ...secretEnv },
    onExit: (instance: Instance, code) => {
      upstreams[instance.number - 1].up = false;
      if (!stopping) console.log(`[cluster] instance ${instance.number} (port ${instance.port}) exited (${code})${proxy ? '; the proxy skips it' : ''}`);
    },
  });

  // From the first instance on, a signal stops every instance (even while they start), and should this process end
  // any other way, none is left running behind it.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[cluster] ${signal}: SIGTERM to every instance; they drain, then exit`);
    // The proxy keeps forwarding meanwhile: draining instances answer new requests 503 and finish running calls.
    await stopInstances(instances, 'SIGTERM');
    await proxy?.close();
    console.log('[cluster] every instance exited');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('exit', () => {
    for (const instance of instances) if (instance.up) instance.process.kill('SIGKILL');
  });

  try {
    await waitUntilListening(instances);
    if (stopping) return;
    proxy = await startRoundRobinProxy({ upstreams, port, host });
  } catch (error) {
    if (stopping) return; // a signal came first: stop() ends the process
    stopping = true;
    await stopInstances(instances, 'SIGKILL');
    throw error;
  }

  console.log(`[cluster] round-robin proxy (no affinity) on ${proxy.url}/mcp, statistics on ${proxy.url}${STATS_PATH}`);
  for (const instance of instances) {
    console.log(`[cluster] instance ${instance.number}: pid ${instance.process.pid}, http://${instance.host}:${instance.port}/mcp`);
  }
}

main().catch((error: unknown) => {
  console.error('[cluster]', error instanceof Error ? error.message : error);
  process.exit(1);
});
