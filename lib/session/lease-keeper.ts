import type { RequestId } from '../protocol/jsonrpc.js';
import type { EventStore } from '../store/event-store.js';
import type { SseStream } from '../store/sse-event.js';
import type { StreamLeases } from '../store/stream-leases.js';
import { followFromStore } from './store-follow.js';

export interface LeaseKeeperOptions {
  /**
   * Leases shared with whoever may resume these streams (the other instances). Undefined: none are taken, since
   * nobody could read them; a resume of a stream not running here then replays what the store holds.
   */
  leases: StreamLeases | undefined;
  /** How long a lease lasts without renewal; all held leases are renewed together every third of it. */
  ttlMs: number;
  /** How long a lease's record (the request id) is kept: as long as the stream's events can be resumed. */
  keepMs: number;
  /** How often a resume of a stream running elsewhere reads the store again. */
  followIntervalMs: number;
  onError: (error: unknown) => void;
}

/**
 * The leases of the streams running on this instance: taken when a request starts, renewed together by one timer,
 * released when it ends; and the resume of a stream running elsewhere, which reads the store until the stream ends
 * or its lease lapses. With or without leases, it knows which finished streams still have events being stored, so
 * that a drain can wait for them (`settled`).
 */
export class LeaseKeeper {
  private readonly held = new Set<string>();
  /** Releases waiting for their stream's last events to be stored. */
  private readonly releasing = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LeaseKeeperOptions) {}

  take(streamId: string, requestId: RequestId): void {
    const { leases, ttlMs, keepMs, onError } = this.options;
    if (!leases) return;
    this.held.add(streamId);
    leases.acquire(streamId, { requestId }, ttlMs, keepMs).catch(onError);
    if (!this.timer) {
      this.timer = setInterval(() => this.renew(), Math.max(10, Math.floor(ttlMs / 3)));
      this.timer.unref();
    }
  }

  release(streamId: string): void {
    if (!this.held.delete(streamId)) return;
    this.options.leases?.release(streamId).catch(this.options.onError);
  }

  /**
   * Releases the lease of a stream whose request finished, once its last events (the final response) are stored: a
   * resume elsewhere that finds the lease released reads the store one last time and ends, so the response must be
   * there by then. Without leases, it only waits for those writes (for `settled`). Call it for streams with an
   * EventStore only.
   */
  releaseWhenStored(stream: { readonly streamId: string; stored(): Promise<void> }): void {
    let done: Promise<void>;
    if (!this.options.leases) done = stream.stored();
    else if (this.held.has(stream.streamId)) done = stream.stored().then(() => this.release(stream.streamId));
    else return; // released already
    this.releasing.add(done);
    void done.then(() => this.releasing.delete(done));
  }

  /** Resolves once every stream given to `releaseWhenStored` so far is stored and its lease released (drain). */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }

  /** Stops renewing: the leases still held lapse within `ttlMs` (what a lost instance looks like to the others). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Streams whose leases are held here now. */
  get size(): number {
    return this.held.size;
  }

  follow(store: EventStore, streamId: string, lastEventId: string): SseStream {
    return followFromStore(store, this.options.leases, streamId, lastEventId, { pollMs: this.options.followIntervalMs, onError: this.options.onError });
  }

  private renew(): void {
    if (this.held.size === 0) {
      this.stop();
      return;
    }
    this.options.leases?.renew([...this.held], this.options.ttlMs).catch(this.options.onError);
  }
}
