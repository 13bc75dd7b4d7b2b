/**
 * A fake clock for idle and TTL behaviour: jest fakes `Date` and `setInterval` only (what LocalSessionManager's
 * idle sweep and the in-memory stores read), while `setTimeout`, sockets, HTTP clients and promises go on in real
 * time. Install it before creating a LocalSessionManager (its sweep interval starts in the constructor), and
 * restore real timers after closing the servers.
 */
export function useFakeClock(): void {
  jest.useFakeTimers({
    doNotFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask', 'hrtime', 'performance'],
  });
}

/** Moves the fake clock on by `ms`, running each sweep that falls due on the way, then lets their work settle. */
export async function advanceClock(ms: number): Promise<void> {
  jest.advanceTimersByTime(ms);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Advances the fake clock by `stepMs` at a time until `check` holds, for expiry that also needs real events to
 * happen first (the server noticing a client left). Gives up after `realMs` of real time, failing with `label`.
 */
export async function advanceClockUntil(check: () => boolean, label: string, stepMs: number, realMs = 5000): Promise<void> {
  const deadline = performance.now() + realMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${realMs} ms (real time) waiting for ${label}`);
    await advanceClock(stepMs);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}
