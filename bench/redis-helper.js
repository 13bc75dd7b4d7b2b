'use strict';
// The Redis the bench uses: the one the tests use (REDIS_URL, default redis://127.0.0.1:6379). Each bench server
// writes under a key prefix of its own and deletes its keys when it stops.

const { randomUUID } = require('node:crypto');

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A connected node-redis client, or an Error saying why not (within 2 s). */
async function connectRedis() {
  const { createClient } = require('redis');
  // The settings docs/redis.md recommends for production: no offline queue (the event store's writes need no abort
  // signal then, see lib/redis/command-deadline.ts).
  const client = createClient({ url: REDIS_URL, disableOfflineQueue: true, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    await client.destroy?.();
    return new Error(`Redis at ${REDIS_URL} is not reachable (${error.message}); start one or set REDIS_URL`);
  }
}

/** A prefix no other run uses: `bench:<pid>:<8 hex>:`. */
function uniquePrefix() {
  return `bench:${process.pid}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under `prefix` (SCAN + UNLINK). Returns how many were deleted. */
async function deleteKeys(client, prefix) {
  let deleted = 0;
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
    const batch = Array.isArray(keys) ? keys : [keys];
    if (batch.length > 0) deleted += await client.unlink(batch);
  }
  return deleted;
}

/** Redis's own CPU time so far (µs, user + system, from INFO cpu): the work a Redis-backed target puts on Redis. */
async function redisCpuMicros(client) {
  const info = await client.info('cpu');
  const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

module.exports = { REDIS_URL, connectRedis, uniquePrefix, deleteKeys, redisCpuMicros };
