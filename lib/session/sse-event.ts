import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

/**
 * The one thing that travels on a stream: a JSON-RPC message, a priming event (`id` + `retry`, no message),
 * or a bare retry hint before the server closes a connection (SEP-1699).
 */
export interface SseEvent {
  id?: string;
  message?: JsonRpcMessage;
  retry?: number;
}

/** What a session manager hands the HTTP layer: the events of one SSE response, in order. */
export type SseStream = AsyncIterable<SseEvent>;
