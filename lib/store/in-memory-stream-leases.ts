import { STREAM_LEASES_DEFAULTS } from '../defaults.js';
import { RecencyList, type RecencyNode } from './recency-list.js';
import { RELEASED_LEASE_KEEP_MS, type StreamLeaseInfo, type StreamLeases } from './stream-leases.js';

export interface InMemoryStreamLeasesOptions {
  /**
   * Records of released leases kept at most; past it the oldest released record goes first (held leases are never
   * dropped: they are bounded by the requests running). Defaults to `10000`.
   */
  maxReleased?: number;
}

interface LeaseEntry {
  streamId: string;
  info: StreamLeaseInfo;
  heldUntil: number;
  keepUntil: number;
  released: boolean;
  lostClaimed: boolean;
  /** Its place among the released records, oldest release first (set once released). */
  releasedNode: RecencyNode<LeaseEntry> | undefined;
}

/**
 * The stream leases of one process (the default): enough for one instance, or for instances sharing this object.
 * Bounded: a released lease's record is kept a minute at most (`RELEASED_LEASE_KEEP_MS`) and at most
 * `maxReleased` of them, so a server taking thousands of requests a second holds a fixed number of records.
 */
export class InMemoryStreamLeases implements StreamLeases {
  private readonly leases = new Map<string, LeaseEntry>();
  private readonly released = new RecencyList<LeaseEntry>();
  private readonly maxReleased: number;
  private lastSweep = 0;

  constructor(options: InMemoryStreamLeasesOptions = {}) {
    this.maxReleased = options.maxReleased ?? STREAM_LEASES_DEFAULTS.maxReleased;
    if (!Number.isInteger(this.maxReleased) || this.maxReleased < 0) throw new RangeError(`maxReleased must be a non-negative integer, got ${this.maxReleased}`);
  }

  async acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void> {
    const now = Date.now();
    this.sweep(now);
    const previous = this.leases.get(streamId);
    if (previous) this.forget(previous);
    const entry: LeaseEntry = {
      streamId,
      info: { requestId: info.requestId },
      heldUntil: now + ttlMs,
      keepUntil: now + Math.max(keepMs, ttlMs),
      released: false,
      lostClaimed: false,
      releasedNode: undefined,
    };
    this.leases.set(streamId, entry);
  }

  async renew(streamIds: readonly string[], ttlMs: number): Promise<void> {
    const now = Date.now();
    for (const streamId of streamIds) {
      const entry = this.leases.get(streamId);
      // A lapsed lease stays lapsed: its instance was taken for lost, and someone may have ended its stream.
      if (entry && !entry.released && entry.heldUntil > now) {
        entry.heldUntil = now + ttlMs;
        entry.keepUntil = Math.max(entry.keepUntil, entry.heldUntil);
      }
    }
  }

  async release(streamId: string): Promise<void> {
    const entry = this.leases.get(streamId);
    if (!entry || entry.released) return;
    entry.released = true;
    entry.heldUntil = 0;
    entry.keepUntil = Math.min(entry.keepUntil, Date.now() + RELEASED_LEASE_KEEP_MS);
    entry.releasedNode = this.released.add(entry);
    while (this.released.size > this.maxReleased) this.forget(this.released.oldest()!);
  }

  async inspect(streamId: string): Promise<{ info: StreamLeaseInfo; held: boolean; released: boolean } | undefined> {
    const entry = this.leases.get(streamId);
    const now = Date.now();
    if (!entry || entry.keepUntil <= now) return undefined;
    return { info: { requestId: entry.info.requestId }, held: entry.heldUntil > now, released: entry.released };
  }

  async claimLost(streamId: string): Promise<boolean> {
    const entry = this.leases.get(streamId);
    if (!entry || entry.released || entry.lostClaimed || entry.heldUntil > Date.now()) return false;
    entry.lostClaimed = true;
    return true;
  }

  /** Records held now, released or not (for tests and metrics). */
  get size(): number {
    return this.leases.size;
  }

  private forget(entry: LeaseEntry): void {
    this.leases.delete(entry.streamId);
    if (entry.releasedNode) this.released.remove(entry.releasedNode);
    entry.releasedNode = undefined;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    // At most maxReleased released records plus the leases of running or lost requests: walked whole.
    for (const entry of this.leases.values()) if (entry.keepUntil <= now) this.forget(entry);
  }
}

/** How often expired records are dropped (on the next acquire). */
const SWEEP_INTERVAL_MS = 10_000;
