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

/** Throws the deadline's error when the signal of `withDeadline` has aborted. */
export function throwIfPastDeadline(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/**
 * The client, sending every command with `signal` (node-redis `withCommandOptions({ abortSignal })`, on
 * `createClient()` and `createCluster()` clients): a command still waiting in node-redis's offline queue when the
 * deadline passes is dropped, never sent after its caller was told it failed. A client without that method is used
 * as it is. node-redis does not abort `MULTI` transactions: the adapters check the deadline before each one.
 */
export function abortable<Client extends object>(client: Client, signal: AbortSignal): Client {
  const withOptions = (client as { withCommandOptions?: (options: { abortSignal: AbortSignal }) => Client }).withCommandOptions;
  return typeof withOptions === 'function' ? withOptions.call(client, { abortSignal: signal }) : client;
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
