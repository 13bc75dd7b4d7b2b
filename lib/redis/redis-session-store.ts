import { SESSION_STORE_DEFAULTS } from '../defaults.js';
import type { SessionState } from '../store/session-state.js';
import type { SessionStore } from '../store/session-store.js';
import { checkCommandTimeout, CommandDeadlines } from './command-deadline.js';
import { REDIS_DEFAULTS } from './redis-defaults.js';

/**
 * The subset of a connected node-redis client (`redis` v5 or v6) that `RedisSessionStore` uses: `createClient()`,
 * or `createCluster()` for a Redis Cluster.
 */
export interface RedisSessionStoreClient {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options?: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

export interface RedisSessionStoreOptions {
  /** Prefix of every key this store writes (`<prefix><sessionId>`). Defaults to `'mcp:session:'`. */
  keyPrefix?: string;
  /**
   * Milliseconds a stored session is kept after its last write (Redis `PX`); `0` keeps it until deleted.
   * Defaults to `86400000` (24 hours). Keep it well above `sessionStoreRefreshInterval` (5 minutes).
   */
  ttlMs?: number;
  /**
   * Milliseconds an operation waits for Redis before it rejects with `RedisTimeoutError` (Redis down or
   * unreachable: node-redis queues commands while it reconnects); `0` waits as long as the client does.
   * Defaults to `2000`.
   */
  commandTimeoutMs?: number;
}

/**
 * Sessions in Redis, as JSON strings under `<prefix><sessionId>`, shared by every instance using the same Redis.
 * One key per session, only ever used alone: fine on a Redis Cluster. Every operation rejects with
 * `RedisTimeoutError` when Redis has not answered within `commandTimeoutMs`.
 */
export class RedisSessionStore implements SessionStore {
  private readonly keyPrefix: string;
  private readonly ttlMs: number;
  private readonly deadlines: CommandDeadlines<RedisSessionStoreClient>;

  constructor(client: RedisSessionStoreClient, options: RedisSessionStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? SESSION_STORE_DEFAULTS.redisKeyPrefix;
    this.ttlMs = options.ttlMs ?? SESSION_STORE_DEFAULTS.redisTtlMs;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 0) throw new RangeError('ttlMs must be a non-negative integer');
    this.deadlines = new CommandDeadlines('RedisSessionStore', client, checkCommandTimeout(options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs));
  }

  async load(sessionId: string): Promise<SessionState | undefined> {
    const json = await this.deadline((client) => client.get(this.keyPrefix + sessionId));
    if (json === null || json === undefined) return undefined;
    return JSON.parse(String(json)) as SessionState;
  }

  async store(sessionId: string, state: SessionState): Promise<void> {
    const json = JSON.stringify(state);
    const key = this.keyPrefix + sessionId;
    await this.deadline((client) => (this.ttlMs > 0 ? client.set(key, json, { expiration: { type: 'PX', value: this.ttlMs } }) : client.set(key, json)));
  }

  async delete(sessionId: string): Promise<void> {
    await this.deadline((client) => client.del(this.keyPrefix + sessionId));
  }

  /** Runs `operation` within `commandTimeoutMs`, on the client with the deadline's abort signal. */
  private deadline<T>(operation: (client: RedisSessionStoreClient) => Promise<T>): Promise<T> {
    return this.deadlines.run(operation);
  }
}
