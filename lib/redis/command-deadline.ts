import { setMaxListeners } from 'node:events';
import { isSingleConnectionClient } from './client-kind.js';

/**
 * The deadline of every Redis operation of the adapters. node-redis queues commands while it reconnects (unless the
 * client was created with `disableOfflineQueue: true`), so without a deadline a request would wait for Redis as
 * long as Redis is down.
 */

/** A Redis operation that got no answer within the adapter's `commandTimeoutMs`. */
export class RedisTimeoutError extends Error {
  /** The deadline that passed, in ms. */
  readonly timeoutMs: number;

  constructor(adapter: string, timeoutMs: number) {
    super(
      `Redis did not answer within ${timeoutMs} ms (${adapter} option commandTimeoutMs): check that Redis is reachable; ` +
        'node-redis reconnects by itself and the next operation is tried again',
    );
    this.name = 'RedisTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** Checks a `commandTimeoutMs` option: `0` (no deadline) or a positive integer. */
export function checkCommandTimeout(timeoutMs: number): number {
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0) throw new RangeError(`commandTimeoutMs must be 0 (no deadline) or a positive integer of ms, got ${timeoutMs}`);
  return timeoutMs;
}

/**
 * Runs `operation`, rejecting with `RedisTimeoutError` when it has not settled within `timeoutMs` (`0`: no
 * deadline). The signal given to `operation` aborts at the deadline: an operation of several steps checks it before
 * each write, so that a step still queued in the client does not write late, after its caller was told it failed.
 * For one-off operations (a close); the adapters' own operations go through `CommandDeadlines`.
 */
export function withDeadline<T>(adapter: string, timeoutMs: number, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let pending: Promise<T>;
  try {
    pending = operation(controller.signal);
  } catch (error) {
    return Promise.reject(error);
  }
  if (timeoutMs === 0) return pending;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new RedisTimeoutError(adapter, timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    timer.unref?.();
    // A late settlement after the deadline is ignored (the promise is already rejected), never unhandled.
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The deadlines of one adapter's operations. Operations that start within the same short window (a sixteenth of
 * `timeoutMs`, at most 100 ms) share one `AbortController`, one timer and one client carrying the abort signal,
 * instead of making each of its own per operation (which cost more than the Redis command itself at a few thousand
 * operations a second). An operation therefore gets between `timeoutMs` and `timeoutMs` plus that window before it
 * rejects with `RedisTimeoutError`; when the window's time is up, its signal aborts, so commands still queued in the
 * client (offline queue) are dropped, and every operation of the window still waiting rejects.
 *
 * The operations of later windows still waiting then fail with it: Redis has not answered for `timeoutMs`, and a
 * write queued behind one that was dropped must not reach Redis without it (a stream's pipelined events would
 * have a gap). So no command is sent after one queued before it was dropped.
 *
 * An operation of one command (the event store's writes, its hot path) may go without the signal on a
 * `createClient()` client made with `disableOfflineQueue: true`, since node-redis v6 handles a command with an
 * `abortSignal` on a slower path (16,000-22,000 more machine instructions per command, half as much again as the
 * rest of its work for the command: docs/benchmarks.md). Such a client queues nothing while it is disconnected and
 * drops what is queued when its connection does, so a command can only wait in it while it is connected: when the
 * socket stops draining, or while node-redis pauses its writes (a maintenance hand-off). So the command carries the
 * signal once no operation of the adapter has been answered (fulfilled) for `stallMs` while one runs, from a
 * deadline that passed until the next answer, while a command sent with it still waits (none without it is queued
 * behind one the deadline may drop: a stream's events would land with a gap), and while the client is not ready.
 * Otherwise node-redis writes it to the socket at its next write (a `setImmediate`), and a signal would drop
 * nothing. Operations of several commands, and every operation on any other client (the offline queue on; a
 * cluster, pool or Sentinel client, whose `isReady` does not speak for the connection a command takes), always
 * carry it. A command sent in the `stallMs` before a stall is noticed can still reach Redis after its deadline, as
 * can what is already in the socket's buffers then (docs/redis.md).
 *
 * Both clients also turn off node-redis's own per-command timeout (`timeout: 0`, node-redis v6 gives every command
 * 5 s by default, with a timer each): this deadline replaces it for the adapter's commands.
 */
export class CommandDeadlines<Client extends object> {
  private window: DeadlineWindow<Client> | undefined;
  /** Windows whose timer runs, oldest first. */
  private readonly live = new Set<DeadlineWindow<Client>>();
  private readonly windowMs: number;
  /** How long Redis may go without answering a running operation before commands carry the signal. */
  private readonly stallMs: number;
  /** The client without a signal (and without node-redis's own timeout), made on first use: see `run`. */
  private direct: Client | undefined;
  /**
   * A `createClient()` client with `disableOfflineQueue: true`: one connection, and nothing left queued in it when
   * that connection drops. Only on such a client may a command go without the signal.
   */
  private readonly dropsQueueOnDisconnect: boolean;
  /** `performance.now()` of the last answer, or of the start of the first operation after none was running. */
  private answeredAt = 0;
  /** A deadline passed with no answer since: Redis is not answering, whether or not an operation waits now. */
  private stalled = false;

  constructor(
    private readonly adapter: string,
    private readonly client: Client,
    private readonly timeoutMs: number,
  ) {
    this.windowMs = Math.max(1, Math.min(MAX_WINDOW_MS, Math.floor(timeoutMs / 16)));
    this.stallMs = Math.min(this.windowMs, MAX_STALL_MS);
    this.dropsQueueOnDisconnect = isSingleConnectionClient(client) && (client as { options?: { disableOfflineQueue?: unknown } }).options?.disableOfflineQueue === true;
  }

  /**
   * Runs `operation` within the deadline, on the client with the deadline's abort signal (node-redis drops a
   * command still queued when it aborts); the signal itself is given too, for checks between steps. `oneCommand`:
   * the operation sends a single command, which may go without the signal while Redis answers (see the class).
   */
  run<T>(operation: (client: Client, signal: AbortSignal) => Promise<T>, oneCommand = false): Promise<T> {
    if (this.timeoutMs === 0) {
      try {
        return operation(this.client, NEVER_ABORTED);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const now = performance.now();
    const window = this.current(now);
    const guarded = !oneCommand || !this.dropsQueueOnDisconnect || this.mayWait(now);
    let pending: Promise<T>;
    try {
      pending = operation(guarded ? window.client : (this.direct ??= withCommandOptions(this.client, { timeout: 0 })), window.controller.signal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (guarded) window.guardedWaiting++;
    return new Promise<T>((resolve, reject) => {
      window.waiting.add(reject);
      // A late settlement after the deadline is ignored (the promise is already rejected), never unhandled.
      pending.then(
        (value) => {
          this.answered();
          window.settled(reject, guarded);
          resolve(value);
        },
        (error: unknown) => {
          // Not counted as an answer: a command the deadline aborted, or one a closed client refused, rejects too.
          window.settled(reject, guarded);
          reject(error);
        },
      );
    });
  }

  /** Whether a command sent now may wait in node-redis's queue (so it needs the signal); see the class. */
  private mayWait(now: number): boolean {
    if (this.stalled || (this.client as { isReady?: boolean }).isReady === false) return true;
    let running = false;
    for (const window of this.live) {
      if (window.guardedWaiting > 0) return true;
      if (window.waiting.size > 0) running = true;
    }
    if (!running) {
      this.answeredAt = now; // the clock of a stall starts with the first operation waiting
      return false;
    }
    return now - this.answeredAt > this.stallMs;
  }

  /** Redis answered an operation (fulfilled it): it is not stalled. */
  private answered(): void {
    this.answeredAt = performance.now();
    this.stalled = false;
  }

  /** The open window, or a new one when it is older than `windowMs` (or has expired). */
  private current(now: number): DeadlineWindow<Client> {
    const open = this.window;
    if (open && !open.expired && now - open.openedAt < this.windowMs) return open;
    open?.close();
    this.window = undefined; // closed: never reused, even when making the next one throws (a broken client)
    const window = new DeadlineWindow(this.client, this.timeoutMs + this.windowMs, now, {
      timedOut: (expired) => this.timedOut(expired),
      done: (finished) => this.live.delete(finished),
    });
    this.live.add(window);
    this.window = window;
    return window;
  }

  /** A window's time is up: it fails, and so does every later window with operations still waiting. */
  private timedOut(window: DeadlineWindow<Client>): void {
    this.stalled = true;
    const error = new RedisTimeoutError(this.adapter, this.timeoutMs);
    let later = false;
    for (const each of this.live) {
      if (each === window) later = true;
      if (later && (each === window || each.waiting.size > 0)) each.expire(error);
    }
  }
}

/** Operations started within one window of `CommandDeadlines`: one signal, one timer, one client. */
class DeadlineWindow<Client extends object> {
  readonly controller = new AbortController();
  readonly client: Client;
  /** The reject functions of the operations still running. */
  readonly waiting = new Set<(error: unknown) => void>();
  /** How many of them were sent with the signal. */
  guardedWaiting = 0;
  expired = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    client: Client,
    expiresInMs: number,
    readonly openedAt: number,
    private readonly owner: { timedOut(window: DeadlineWindow<Client>): void; done(window: DeadlineWindow<Client>): void },
  ) {
    // node-redis adds an abort listener per command: a busy window has many, none of them a leak.
    setMaxListeners(0, this.controller.signal);
    this.client = withCommandOptions(client, { abortSignal: this.controller.signal, timeout: 0 });
    this.timer = setTimeout(() => this.owner.timedOut(this), expiresInMs);
    this.timer.unref?.();
  }

  /** Fails every operation still waiting, and drops their commands still queued in the client. */
  expire(error: RedisTimeoutError): void {
    if (this.expired) return;
    this.expired = true;
    clearTimeout(this.timer);
    this.controller.abort(error);
    for (const reject of this.waiting) reject(error);
    this.waiting.clear();
    this.guardedWaiting = 0;
    this.owner.done(this);
  }

  /** An operation settled (its answer, or its client's error); `guarded`: it was sent with the signal. */
  settled(reject: (error: unknown) => void, guarded: boolean): void {
    // Only while it still counted: after an expiry (which cleared the window) a late settlement changes nothing.
    if (this.waiting.delete(reject) && guarded) this.guardedWaiting--;
    if (this.closed && this.waiting.size === 0) this.finish();
  }

  /** No new operation joins; the timer goes as soon as none is waiting. */
  close(): void {
    this.closed = true;
    if (this.waiting.size === 0) this.finish();
  }

  private finish(): void {
    if (this.expired) return;
    clearTimeout(this.timer);
    this.owner.done(this);
  }
}

/** Operations may start in the same window for at most this long. */
const MAX_WINDOW_MS = 100;

/**
 * The longest Redis may leave this adapter's operations unanswered before its commands carry the abort signal
 * (less for short deadlines: a window's length). A command answered in that time never waited in the client.
 */
const MAX_STALL_MS = 20;

/** The signal of operations without a deadline (`commandTimeoutMs: 0`). */
const NEVER_ABORTED = new AbortController().signal;

/** Throws the deadline's error when the signal of `withDeadline` has aborted. */
export function throwIfPastDeadline(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/**
 * The client sending every command with `options` (node-redis `withCommandOptions`, on `createClient()` and
 * `createCluster()` clients); a client without that method is used as it is. `timeout: 0` turns off node-redis's
 * own per-command timeout (the deadline stands in). With `abortSignal`, a command still waiting in node-redis's queue
 * (the offline queue) when the deadline passes is dropped, never sent after its caller was told it failed; node-redis
 * does not abort `MULTI` transactions: the adapters check the deadline before each one.
 */
function withCommandOptions<Client extends object>(client: Client, options: { abortSignal?: AbortSignal; timeout: 0 }): Client {
  const withOptions = (client as { withCommandOptions?: (options: { abortSignal?: AbortSignal; timeout: number }) => Client }).withCommandOptions;
  return typeof withOptions === 'function' ? withOptions.call(client, options) : client;
}

/**
 * Resolves once the client is connected (node-redis `isReady`; a client without it counts as connected), rejects
 * with the deadline's error if that does not happen in time. node-redis cannot abort a queued `MULTI`: a
 * transaction is sent only on a connected client, so it is never left in the offline queue to run after its caller
 * was told it failed.
 */
export async function untilReady(client: object, signal: AbortSignal): Promise<void> {
  const ready = () => (client as { isReady?: boolean }).isReady !== false;
  while (!ready()) {
    throwIfPastDeadline(signal);
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  throwIfPastDeadline(signal);
}

/** How often `untilReady` looks again: reconnections take tens of ms at best. */
const READY_POLL_MS = 20;
