/**
 * A handler's result is a value or a promise of one (`McpServer.handle` answers a request served synchronously
 * without a promise). Callers take a value as it is: awaiting it would still cost a promise step per request.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
