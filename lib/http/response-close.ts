import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * True when the response can no longer reach the client: it closed or was destroyed, its socket is gone, or the
 * request was aborted (the client disconnected before the response finished).
 */
export function isResponseClosed(res: ServerResponse): boolean {
  const req = res.req as IncomingMessage | undefined;
  return res.closed || res.destroyed || res.socket?.destroyed === true || req?.aborted === true;
}

/**
 * Runs `fn` once when the response's connection closes. A response emits 'close' only once: when the client left
 * while something earlier ran (an async auth middleware, a session restore, one of our own awaits), a listener
 * attached afterwards would never fire. So `fn` runs at once (synchronously) when the response is already
 * closed, and otherwise on its 'close' event; `res.off('close', fn)` takes it off again. Returns nothing: a
 * per-request object registers a bound method of its own and keeps it, where a returned closure to take it off
 * would be one more function per request (see docs/benchmarks.md, "Collections that churn, closures kept on a
 * request").
 */
export function onResponseClose(res: ServerResponse, fn: () => void): void {
  // `on`, not `once`: a response emits 'close' once, and `once` wraps `fn` in a bound function and its state.
  if (isResponseClosed(res)) fn();
  else res.on('close', fn);
}
