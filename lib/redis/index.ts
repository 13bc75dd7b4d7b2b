/**
 * Redis adapters for mcp-express: `import { RedisEventStore, RedisSessionStore, RedisTaskStore, RedisMessageBus }
 * from 'mcp-express/redis'`. Needs the optional peer dependency `redis` (node-redis v5 or v6); pass a connected
 * `createClient()` client, or a `createCluster()` client for a Redis Cluster. The core package (`mcp-express`)
 * never imports this module or the driver.
 */
export { RedisEventStore, type RedisEventStoreOptions, type RedisEventStoreClient, type RedisEventStoreMulti } from './redis-event-store.js';
export { RedisSessionStore, type RedisSessionStoreOptions, type RedisSessionStoreClient } from './redis-session-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions, type RedisTaskStoreClient } from './redis-task-store.js';
export { RedisMessageBus, type RedisMessageBusOptions, type RedisMessageBusClient, type RedisMessageBusSubscriber } from './redis-message-bus.js';
export { RedisStreamLeases, type RedisStreamLeasesOptions, type RedisStreamLeasesClient, type RedisStreamLeasesMulti } from './redis-stream-leases.js';
export { RedisTimeoutError } from './command-deadline.js';
