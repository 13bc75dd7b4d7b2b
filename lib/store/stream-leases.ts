import type { RequestId } from '../protocol/jsonrpc.js';

/** What a lease records about the request a running stream answers. */
export interface StreamLeaseInfo {
  /** The JSON-RPC id of the request: the id of the error response that ends the stream if its instance is lost. */
  requestId: RequestId;
}

/**
 * Leases on running streams, so that any instance can tell a stream whose instance is still working from one whose
 * instance was lost. The instance running a request's stream takes a lease when the request starts, renews it while
 * the handler runs and releases it when the stream completes. A resume elsewhere that finds the stream incomplete
 * and its lease lapsed ends the stream with an error response instead of waiting forever.
 *
 * One process uses `InMemoryStreamLeases`; a cluster shares one (`RedisStreamLeases` from `mcp-express/redis`).
 */
export interface StreamLeases {
  /** Takes the lease of a stream that starts running here, for `ttlMs`, recording `info` for as long as `keepMs`. */
  acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void>;
  /** Extends the leases of these running streams to `ttlMs` from now. */
  renew(streamIds: readonly string[], ttlMs: number): Promise<void>;
  /**
   * The stream completed here: its lease ends. Its info stays for `inspect` a short while (at most
   * `RELEASED_LEASE_KEEP_MS`, never longer than `keepMs`): a completed stream's final response is in the EventStore
   * by then, so a resume elsewhere ends on it without asking the lease; the record only serves a resume that read
   * the store just before the response was stored.
   */
  release(streamId: string): Promise<void>;
  /**
   * What is known of a stream: undefined when no lease was ever taken (or its info expired); otherwise its info,
   * whether its lease is still held, and whether it was released (the stream completed normally).
   */
  inspect(streamId: string): Promise<{ info: StreamLeaseInfo; held: boolean; released: boolean } | undefined>;
  /**
   * Claims the ending of a stream whose lease lapsed: true for exactly one caller across the deployment, which then
   * stores the lost-request error; false for everyone else.
   */
  claimLost(streamId: string): Promise<boolean>;
}

/** How long the record of a released lease is kept at most (see `StreamLeases.release`): one minute. */
export const RELEASED_LEASE_KEEP_MS = 60_000;
