import type { JsonRpcNotification } from '../protocol/jsonrpc.js';

export interface OutgoingRequestOptions {
  signal?: AbortSignal;
  /** Names the request in a 2026-07-28 `input_required` result (`inputRequests` key); generated when absent. */
  key?: string;
  /** Milliseconds to wait for the client's answer. */
  timeoutMs?: number;
}

/**
 * Where a request's related messages go. Implemented by the session layer for the stream the request
 * came on; the server API never sees HTTP.
 */
export interface RequestChannel {
  /**
   * Sends a notification related to the request (progress, logs) on the request's stream. Returns a promise
   * when the stream's reader is behind (see `maxBufferedBytesPerStream`): it settles once there is room again.
   */
  notify(notification: JsonRpcNotification): Promise<void> | void;
  /** Sends a request to the client on the request's stream and resolves with the client's result. */
  request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>>;
  /**
   * Ends the HTTP connection of the request's stream while the request goes on (SEP-1699 polling): the client
   * reconnects with `Last-Event-ID` after `retryMs`. A no-op where the stream cannot be resumed.
   */
  closeStream(retryMs?: number): void;
  /** Same for the session's standalone (GET) stream. */
  closeStandaloneStream(retryMs?: number): void;
  /** The verified handler state of a multi-round-trip retry (2026-07-28), if any. */
  readonly requestState?: unknown;
}
