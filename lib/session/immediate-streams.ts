import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { SseStream } from '../store/sse-event.js';
import type { RequestInfo, SessionManager } from './session-manager.js';

/** Where a session manager keeps its immediate streams (internal: not part of the `SessionManager` interface users implement). */
export const IMMEDIATE_STREAMS = Symbol('mcp-express.immediateStreams');

/**
 * A session manager's `createStream` for the sessions it holds in this process's memory (`LocalSessionManager`),
 * done before it returns. The HTTP layer then writes a session request's stream without awaiting a promise for
 * it, two promises and their steps fewer per call (docs/benchmarks.md, "The session call's promises").
 */
export interface ImmediateStreams {
  /**
   * `createStream`, done before it returns, when the session is held here; undefined when it is not (it may have to
   * be restored from a `SessionStore` first: `createStream` does that). Throws where `createStream` rejects.
   */
  createStreamNow(sessionId: string, request: JsonRpcRequest, info: RequestInfo): SseStream | undefined;
}

/**
 * A manager's immediate streams, or undefined: a manager without them, or one whose `createStream` is not its
 * class's own (a subclass or wrapper that counts, delays or fails streams is always called).
 */
export function immediateStreamsOf(manager: SessionManager): ImmediateStreams | undefined {
  return (manager as { [IMMEDIATE_STREAMS]?: ImmediateStreams })[IMMEDIATE_STREAMS];
}
