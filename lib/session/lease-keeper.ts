import type { RequestId } from '../protocol/jsonrpc.js';
import type { EventStore } from '../store/event-store.js';
import type { SseStream } from '../store/sse-event.js';
import type { StreamLeases } from '../store/stream-leases.js';
import { RecencyList } from '../store/recency-list.js';
import { followFromStore } from './store-follow.js';

/**
 * A running request's stream, as the keeper sees it. While its lease is delayed the stream holds back what it would
 * deliver to the client (events are still stored): a client holds no id of the stream, and so cannot resume it
 * anywhere, until the lease is held or the stream completed with all its events stored. Every resume therefore
 * finds either a lease or the final response, and a lost instance is told apart from a running one as before.
 */
export interface LeasedStream {
  readonly streamId: string;
  /**
   * Holds back delivery to the client until `releaseDelivery` or the stream's stored completion; `leaseNow` takes
   * the lease at once (then releases delivery), for a stream that must give the client its ids early.
   */
  holdDelivery(leaseNow?: () => Promise<void>): void;
  releaseDelivery(): void;
  stored(): Promise<void>;
  /** False when `stored()` has nothing to wait for (unset: unknown, so it is awaited). */
  readonly storing?: boolean;
}

/** The `leaseDelayMs` option of a session manager: 0 or more ms, or its default; a TypeError naming it otherwise. */
export function leaseDelayOption(value: number | undefined, owner: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_LEASE_DELAY_MS) {
    throw new TypeError(`${owner} option leaseDelayMs must be a number of milliseconds from 0 to ${MAX_LEASE_DELAY_MS} (got ${String(value)}).`);
  }
  return value;
}

/** The longest lease delay: a minute (a stream sends nothing until its lease is held). */
const MAX_LEASE_DELAY_MS = 60_000;

interface PendingLease {
  /** `performance.now()` when the request started (monotonic: a wall-clock step cannot stall the leases). */
  since: number;
  /** Takes the lease (once) and then releases the stream's delivery. */
  takeNow: () => Promise<void>;
}

export interface LeaseKeeperOptions {
  /**
   * Leases shared with whoever may resume these streams (the other instances). Undefined: none are taken, since
   * nobody could read them; a resume of a stream not running here then replays what the store holds.
   */
  leases: StreamLeases | undefined;
  /** How long a lease lasts without renewal; all held leases are renewed together every third of it. */
  ttlMs: number;
  /**
   * How long a request runs before its stream's lease is taken; its stream delivers nothing to the client until
   * then (see `LeasedStream`). A request that completes sooner takes no lease. 0: taken when the request starts,
   * with nothing held back.
   */
  delayMs: number;
  /** How long a lease's record (the request id) is kept: as long as the stream's events can be resumed. */
  keepMs: number;
  /** How often a resume of a stream running elsewhere reads the store again. */
  followIntervalMs: number;
  onError: (error: unknown) => void;
}

/**
 * The leases of the streams running on this instance: taken once a request has run `delayMs` (most requests finish
 * sooner and take none: no lease commands at all), renewed together by one timer, released when it ends; and the
 * resume of a stream running elsewhere, which reads the store until the stream ends or its lease lapses. With or
 * without leases, it knows which finished streams still have events being stored, so that a drain can wait for
 * them (`settled`).
 */
export class LeaseKeeper {
  private readonly held = new Set<string>();
  /** Streams whose lease is delayed, oldest first (a Map keeps insertion order). */
  private readonly pending = new Map<string, PendingLease>();
  private pendingTimer: NodeJS.Timeout | undefined;
  /** `stop()` was called: no more leases (the manager is shutting down). */
  private stopped = false;
  /** Streams waiting to be stored (and their leases released): a list, not a Set (see `RecencyList`). */
  private readonly releasing = new RecencyList<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LeaseKeeperOptions) {}

  /**
   * A request starts on `stream`: its lease is taken after `delayMs` unless it completes sooner; until then the
   * stream holds back delivery. Call it before the stream's priming event.
   */
  take(stream: LeasedStream, requestId: RequestId): void {
    if (!this.options.leases || this.stopped) return;
    const { delayMs } = this.options;
    if (delayMs === 0) {
      void this.acquire(stream.streamId, requestId);
      return;
    }
    const { streamId } = stream;
    let taking: Promise<void> | undefined;
    const takeNow = (): Promise<void> => {
      if (taking) return taking;
      // Completed, cancelled or its session ended first: no lease; its completion delivers once it is stored.
      if (!this.pending.delete(streamId)) return (taking = Promise.resolve());
      // Held, or failed (reported): either way the stream goes on as it would have without the delay.
      return (taking = this.acquire(streamId, requestId).then(() => stream.releaseDelivery()));
    };
    stream.holdDelivery(takeNow);
    this.pending.set(streamId, { since: performance.now(), takeNow });
    if (!this.pendingTimer) {
      // A quarter of the delay apart (1 ms at least): a lease is taken that much after `delayMs` at most.
      this.pendingTimer = setInterval(() => this.acquireDue(performance.now() - delayMs), Math.max(1, Math.ceil(delayMs / 4)));
      this.pendingTimer.unref();
    }
  }

  /**
   * A stream that completes at once without a lease (an initialize, a refused request): it delivers once its
   * events are stored, so that no id reaches the client before its response is in the store.
   */
  holdUntilStored(stream: LeasedStream): void {
    if (this.options.leases) stream.holdDelivery();
  }

  /** The request ended without completing its stream (cancelled, or its session ended): its lease ends, if any. */
  release(streamId: string): void {
    if (this.pending.delete(streamId)) return;
    if (!this.held.delete(streamId)) return;
    this.options.leases?.release(streamId).catch(this.options.onError);
  }

  /**
   * Releases the lease of a stream whose request finished, once its last events (the final response) are stored: a
   * resume elsewhere that finds the lease released reads the store one last time and ends, so the response must be
   * there by then. Without leases, it only waits for those writes (for `settled`). Call it for streams with an
   * EventStore only.
   */
  releaseWhenStored(stream: Pick<LeasedStream, 'streamId' | 'stored' | 'storing'>): void {
    let done: Promise<void>;
    // Completed before its lease was due: none is taken; the stream delivers once its events are stored.
    if (!this.options.leases || this.pending.delete(stream.streamId)) {
      if (stream.storing === false) return; // stored already (a store whose writes are done when they return): nothing to wait for
      done = stream.stored();
    } else if (this.held.has(stream.streamId)) done = stream.stored().then(() => this.release(stream.streamId));
    else return; // released already
    const entry = this.releasing.add(done);
    void done.then(() => this.releasing.remove(entry));
  }

  /** Resolves once every stream given to `releaseWhenStored` so far is stored and its lease released (drain). */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing.values()]);
  }

  /** Stops: no lease is taken any more, and the leases still held lapse within `ttlMs` (as a lost instance's do). */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.pendingTimer) clearInterval(this.pendingTimer);
    this.pendingTimer = undefined;
  }

  /** Streams whose leases are held here now. */
  get size(): number {
    return this.held.size;
  }

  follow(store: EventStore, streamId: string, lastEventId: string): SseStream {
    return followFromStore(store, this.options.leases, streamId, lastEventId, { pollMs: this.options.followIntervalMs, onError: this.options.onError });
  }

  private acquire(streamId: string, requestId: RequestId): Promise<void> {
    const { leases, ttlMs, keepMs, onError } = this.options;
    this.held.add(streamId);
    if (!this.timer) {
      this.timer = setInterval(() => this.renew(), Math.max(10, Math.floor(ttlMs / 3)));
      this.timer.unref();
    }
    let acquiring: Promise<void>;
    try {
      acquiring = leases!.acquire(streamId, { requestId }, ttlMs, keepMs);
    } catch (error) {
      acquiring = Promise.reject(error); // an implementation that throws at once fails like one that rejects
    }
    return acquiring.catch(onError);
  }

  /** Takes the leases of the streams that started at or before `startedBy`; each delivers once its lease is held. */
  private acquireDue(startedBy: number): void {
    for (const entry of this.pending.values()) {
      if (entry.since > startedBy) break;
      void entry.takeNow(); // removes the entry
    }
    if (this.pending.size === 0 && this.pendingTimer) {
      clearInterval(this.pendingTimer);
      this.pendingTimer = undefined;
    }
  }

  private renew(): void {
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    this.options.leases?.renew([...this.held], this.options.ttlMs).catch(this.options.onError);
  }
}
