import type { RequestId } from '../protocol/jsonrpc.js';
import { RELEASED_LEASE_KEEP_MS, type StreamLeaseInfo, type StreamLeases } from '../store/stream-leases.js';
import { checkCommandTimeout, CommandDeadlines, untilReady } from './command-deadline.js';
import { checkKeyPrefix, hashTag } from './hash-tag.js';
import { REDIS_DEFAULTS } from './redis-defaults.js';
import { RedisScript, type RedisScriptClient } from './redis-script.js';

/** The commands `RedisStreamLeases` runs in a transaction (a node-redis `client.multi()` fits). */
export interface RedisStreamLeasesMulti {
  hSet(key: string, field: string, value: string): RedisStreamLeasesMulti;
  hGetAll(key: string): RedisStreamLeasesMulti;
  pExpire(key: string, ms: number, mode?: 'NX' | 'XX' | 'GT' | 'LT'): RedisStreamLeasesMulti;
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): RedisStreamLeasesMulti;
  del(key: string): RedisStreamLeasesMulti;
  exists(key: string): RedisStreamLeasesMulti;
  exec(): Promise<unknown>;
}

/**
 * The subset of a connected node-redis client that `RedisStreamLeases` uses: `createClient()`, or `createCluster()`
 * for a Redis Cluster (the two keys of one stream share a hash tag).
 */
export interface RedisStreamLeasesClient {
  pExpire(key: string, ms: number): Promise<unknown>;
  hSetNX(key: string, field: string, value: string): Promise<unknown>;
  multi(): RedisStreamLeasesMulti;
  /** node-redis `EVAL`: with it a lease is taken, and released, in one command (a script) rather than a transaction. */
  eval?(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** node-redis `EVALSHA`: with it the scripts' text is not sent with every call. */
  evalSha?(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export interface RedisStreamLeasesOptions {
  /** Prefix of every key; no `{` or `}` (a hash tag follows it). Defaults to `'mcp:lease:'`. */
  keyPrefix?: string;
  /**
   * Milliseconds an operation waits for Redis before it rejects with `RedisTimeoutError`; `0` waits as long as the
   * client does. Defaults to `2000`.
   */
  commandTimeoutMs?: number;
}

/**
 * Stream leases in Redis, shared by every instance using the same Redis and `keyPrefix`. Per stream, a lease key
 * (`<prefix>{<streamId>}:lease`, expiring after the lease's TTL unless renewed) and an info hash
 * (`<prefix>{<streamId>}:info`: the request id, whether the stream was released and whether its loss was claimed,
 * kept for `keepMs`, and a minute at most once released). A lapsed lease is never renewed again (`PEXPIRE` of a
 * missing key does nothing), so once an instance is lost its streams stay lost.
 */
export class RedisStreamLeases implements StreamLeases {
  private readonly keyPrefix: string;
  private readonly deadlines: CommandDeadlines<RedisStreamLeasesClient>;

  constructor(
    private readonly client: RedisStreamLeasesClient,
    options: RedisStreamLeasesOptions = {},
  ) {
    this.keyPrefix = checkKeyPrefix(options.keyPrefix ?? 'mcp:lease:');
    this.deadlines = new CommandDeadlines('RedisStreamLeases', client, checkCommandTimeout(options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs));
  }

  async acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void> {
    const { lease, infoKey } = this.keys(streamId);
    if (typeof this.client.eval === 'function') {
      const args = [JSON.stringify(info.requestId), String(Math.max(keepMs, ttlMs)), String(ttlMs)];
      await this.deadline((client) => ACQUIRE_SCRIPT.run(client as RedisScriptClient, [infoKey, lease], args));
      return;
    }
    await this.deadline(async (client, signal) => {
      await untilReady(this.client, signal);
      return client
        .multi()
        .hSet(infoKey, 'requestId', JSON.stringify(info.requestId))
        .hSet(infoKey, 'released', '0')
        .pExpire(infoKey, Math.max(keepMs, ttlMs))
        .set(lease, '1', { expiration: { type: 'PX', value: ttlMs } })
        .exec();
    });
  }

  async renew(streamIds: readonly string[], ttlMs: number): Promise<void> {
    await this.deadline((client) => Promise.all(streamIds.map((streamId) => client.pExpire(this.keys(streamId).lease, ttlMs))));
  }

  async release(streamId: string): Promise<void> {
    const { lease, infoKey } = this.keys(streamId);
    if (typeof this.client.eval === 'function') {
      await this.deadline((client) => RELEASE_SCRIPT.run(client as RedisScriptClient, [infoKey, lease], [String(RELEASED_LEASE_KEEP_MS)]));
      return;
    }
    await this.deadline(async (client, signal) => {
      await untilReady(this.client, signal);
      return client.multi().hSet(infoKey, 'released', '1').pExpire(infoKey, RELEASED_LEASE_KEEP_MS, 'LT').del(lease).exec();
    });
  }

  async inspect(streamId: string): Promise<{ info: StreamLeaseInfo; held: boolean; released: boolean } | undefined> {
    const { lease, infoKey } = this.keys(streamId);
    const replies = (await this.deadline((client) => client.multi().hGetAll(infoKey).exists(lease).exec())) as [Record<string, string> | null, number];
    const fields = replies[0];
    if (!fields || typeof fields.requestId !== 'string') return undefined;
    let requestId: RequestId;
    try {
      requestId = JSON.parse(fields.requestId) as RequestId;
    } catch {
      return undefined;
    }
    return { info: { requestId }, held: Number(replies[1]) === 1, released: fields.released === '1' };
  }

  async claimLost(streamId: string): Promise<boolean> {
    const state = await this.inspect(streamId);
    if (!state || state.held || state.released) return false;
    return Number(await this.deadline((client) => client.hSetNX(this.keys(streamId).infoKey, 'lost', '1'))) === 1;
  }

  private keys(streamId: string): { lease: string; infoKey: string } {
    const base = this.keyPrefix + hashTag(streamId);
    return { lease: `${base}:lease`, infoKey: `${base}:info` };
  }

  /** Runs `operation` within `commandTimeoutMs`, on the client with the deadline's abort signal. */
  private deadline<T>(operation: (client: RedisStreamLeasesClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.deadlines.run(operation);
  }
}

/** Takes a lease: the info hash (request id, not released) kept `ARGV[2]` ms, the lease key for `ARGV[3]` ms. */
const ACQUIRE_SCRIPT = new RedisScript(`
redis.call('HSET', KEYS[1], 'requestId', ARGV[1], 'released', '0')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 1
`);

/**
 * Releases a lease: marked released in the info hash, which is kept `ARGV[1]` ms at most from now (`LT`: never
 * longer than it was), the lease key deleted.
 */
const RELEASE_SCRIPT = new RedisScript(`
redis.call('HSET', KEYS[1], 'released', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'LT')
redis.call('DEL', KEYS[2])
return 1
`);
