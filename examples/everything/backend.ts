import { createClient, createCluster } from 'redis';
import { LocalSessionManager, NeverSessionManager, type MessageBus, type SessionManager, type TaskStore } from 'mcp-express';
import { RedisEventStore, RedisMessageBus, RedisSessionStore, RedisStreamLeases, RedisTaskStore } from 'mcp-express/redis';

/** What the example serves with: a session manager, a message bus and a task store, and how to release them. */
export interface Backend {
  /** Undefined: the middleware's default (sessions in memory, or none without legacy sessions). */
  sessionManager: SessionManager | undefined;
  bus: MessageBus | undefined;
  taskStore: TaskStore | undefined;
  /** A short description for the start-up line. */
  description: string;
  close(): Promise<void>;
}

/**
 * In one process by default. With `REDIS_URL` (one Redis) or `REDIS_CLUSTER_NODES` (`host:port,host:port`, a Redis
 * Cluster), sessions, events, stream leases, tasks and the message bus live in Redis, so any number of instances
 * serve any request with no sticky sessions.
 */
export async function createBackend(legacySessions: boolean): Promise<Backend> {
  const url = process.env.REDIS_URL;
  const clusterNodes = process.env.REDIS_CLUSTER_NODES;
  if (!url && !clusterNodes) {
    return {
      sessionManager: undefined,
      bus: undefined,
      taskStore: undefined,
      description: 'in memory',
      close: async () => undefined,
    };
  }
  const client = clusterNodes
    ? createCluster({ rootNodes: clusterNodes.split(',').map((node) => ({ url: `redis://${node.trim()}` })) })
    : createClient({ url, socket: { reconnectStrategy: (retries) => Math.min(retries * 100, 2000) } });
  client.on('error', (error) => console.error('[redis]', error.message));
  await client.connect();
  // REDIS_KEY_PREFIX (e.g. `staging:`): goes before every key and bus channel, so deployments (or test runs) sharing
  // one Redis never see each other's data. Defaults to none (the adapters' own `mcp:…` prefixes).
  const prefix = process.env.REDIS_KEY_PREFIX ?? '';
  const eventStore = new RedisEventStore(client, { keyPrefix: `${prefix}mcp:events:` });
  const streamLeases = new RedisStreamLeases(client, { keyPrefix: `${prefix}mcp:lease:` });
  const bus = new RedisMessageBus(client, { channelPrefix: `${prefix}mcp:bus:` });
  // LEASE_TTL_MS: how soon a resume elsewhere gives up on a killed instance (default 10 s).
  const leaseTtlMs = process.env.LEASE_TTL_MS === undefined ? undefined : Number(process.env.LEASE_TTL_MS);
  // LEASE_DELAY_MS: how long a request runs before its stream lease is taken (default 10 ms; quicker ones take none).
  const leaseDelayMs = process.env.LEASE_DELAY_MS === undefined ? undefined : Number(process.env.LEASE_DELAY_MS);
  const sessionManager = legacySessions
    ? new LocalSessionManager({ eventStore, sessionStore: new RedisSessionStore(client, { keyPrefix: `${prefix}mcp:session:` }), streamLeases, leaseTtlMs, leaseDelayMs })
    : new NeverSessionManager({ eventStore, streamLeases, leaseTtlMs, leaseDelayMs });
  return {
    sessionManager,
    bus,
    taskStore: new RedisTaskStore(client, { keyPrefix: `${prefix}mcp:task:` }),
    description: clusterNodes ? `Redis Cluster ${clusterNodes}` : `Redis ${url}`,
    async close() {
      await bus.close();
      await client.close();
    },
  };
}
