import type { StreamLeaseInfo, StreamLeases } from './stream-leases.js';

interface LeaseEntry {
  info: StreamLeaseInfo;
  heldUntil: number;
  keepUntil: number;
  released: boolean;
  lostClaimed: boolean;
}

/** The stream leases of one process (the default): enough for one instance, or for instances sharing this object. */
export class InMemoryStreamLeases implements StreamLeases {
  private readonly leases = new Map<string, LeaseEntry>();
  private lastSweep = 0;

  async acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void> {
    const now = Date.now();
    this.sweep(now);
    this.leases.set(streamId, { info: { requestId: info.requestId }, heldUntil: now + ttlMs, keepUntil: now + Math.max(keepMs, ttlMs), released: false, lostClaimed: false });
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
    if (entry) {
      entry.released = true;
      entry.heldUntil = 0;
    }
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

  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [streamId, entry] of this.leases) if (entry.keepUntil <= now) this.leases.delete(streamId);
  }
}
