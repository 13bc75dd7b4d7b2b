import { SESSION_STORE_DEFAULTS } from '../defaults.js';
import type { SessionState } from '../store/session-state.js';
import type { SessionStore } from '../store/session-store.js';

/** The subset of a connected node-redis client (`createClient()`, `redis` v5 or v6) that `RedisSessionStore` uses. */
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
}

/** Sessions in Redis, as JSON strings under `<prefix><sessionId>`, shared by every instance using the same Redis. */
export class RedisSessionStore implements SessionStore {
  private readonly client: RedisSessionStoreClient;
  private readonly keyPrefix: string;
  private readonly ttlMs: number;

  constructor(client: RedisSessionStoreClient, options: RedisSessionStoreOptions = {}) {
    this.client = client;
    this.keyPrefix = options.keyPrefix ?? SESSION_STORE_DEFAULTS.redisKeyPrefix;
    this.ttlMs = options.ttlMs ?? SESSION_STORE_DEFAULTS.redisTtlMs;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 0) throw new RangeError('ttlMs must be a non-negative integer');
  }

  async load(sessionId: string): Promise<SessionState | undefined> {
    const json = await this.client.get(this.keyPrefix + sessionId);
    if (json === null || json === undefined) return undefined;
    return JSON.parse(String(json)) as SessionState;
  }

  async store(sessionId: string, state: SessionState): Promise<void> {
    const json = JSON.stringify(state);
    if (this.ttlMs > 0) await this.client.set(this.keyPrefix + sessionId, json, { expiration: { type: 'PX', value: this.ttlMs } });
    else await this.client.set(this.keyPrefix + sessionId, json);
  }

  async delete(sessionId: string): Promise<void> {
    await this.client.del(this.keyPrefix + sessionId);
  }
}
