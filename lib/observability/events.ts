/**
 * What `mcpMiddleware({ onEvent })` reports: one discriminated union, `event.type` says which. Events carry ids,
 * names, durations and outcomes, never arguments, results or principals (no personal data by default).
 */
export type McpEvent = RequestStartEvent | RequestEndEvent | SessionLifecycleEvent | StreamResumedEvent | RequestRefusedEvent;

/**
 * How a request was served: `'session'` inside a session (`Mcp-Session-Id`, 2025 era), `'stateless'` without one
 * (2026-07-28, or a 2025-era client while `legacySessions` is `false`).
 */
export type ServingEra = 'session' | 'stateless';

/** A JSON-RPC request the middleware is about to dispatch to the server (after its transport checks passed). */
export interface RequestStartEvent {
  type: 'request.start';
  era: ServingEra;
  /**
   * The JSON-RPC method, e.g. `tools/call`, as the client sent it: an unknown one ends with `errorCode` -32601 (map
   * those to one label value in metrics).
   */
  method: string;
  /**
   * The tool's name, for `tools/call` of a tool the server has. A name it does not have is left out: clients choose
   * what they send, and metric labels must stay a bounded set.
   */
  toolName?: string;
  /** The JSON-RPC id of the request. */
  requestId: string | number;
  /** The session, in the session era (for `initialize`, known only at `request.end`). */
  sessionId?: string;
  /** The protocol version the request speaks, when known (the session's, or the request's). */
  protocolVersion?: string;
}

/**
 * The request's reply is over: its final response was written (JSON, or the last event of its SSE stream), or its
 * stream ended without one.
 */
export interface RequestEndEvent extends Omit<RequestStartEvent, 'type'> {
  type: 'request.end';
  /** Milliseconds from `request.start` to the end of the reply (fractional, from `performance.now()`). */
  durationMs: number;
  /**
   * `'ok'`: a result was sent (a tool result with `isError: true` included: that is a tool's answer). `'error'`: a
   * JSON-RPC error response was sent; `errorCode` says which. `'cancelled'`: the reply ended without a response (the
   * client cancelled the request or went away, or the server shut down before it finished).
   */
  outcome: 'ok' | 'error' | 'cancelled';
  /** The JSON-RPC error code, when `outcome` is `'error'` (e.g. `-32602`, `-32603`). */
  errorCode?: number;
}

/**
 * A session began or ended on this instance. `created`: `initialize` made it. `restored`: a request for a session
 * another instance (or an earlier copy) made was served here, from the `SessionStore`. `expired`: it was idle for
 * `sessionIdleTimeout`. `closed`: `reason` says why.
 */
export interface SessionLifecycleEvent {
  type: 'session.created' | 'session.restored' | 'session.expired' | 'session.closed';
  sessionId: string;
  /**
   * For `session.closed`: `'deleted'` (the client's DELETE reached this instance), `'deleted-elsewhere'` (a DELETE
   * on another instance, through the bus) or `'shutdown'` (`mcp.close()`).
   */
  reason?: 'deleted' | 'deleted-elsewhere' | 'shutdown';
}

/** A client resumed a stream with `Last-Event-ID` (a GET). */
export interface StreamResumedEvent {
  type: 'stream.resumed';
  era: ServingEra;
  /** The session, in the session era. */
  sessionId?: string;
  /** The `Last-Event-ID` the client sent. */
  lastEventId: string;
}

/**
 * A request refused before it reached the MCP handling: a `Host` or `Origin` the DNS-rebinding checks do not allow
 * (403), or a request with several `Host` headers (400). A misconfigured `allowedHosts` shows up here.
 */
export interface RequestRefusedEvent {
  type: 'request.refused';
  /** The HTTP status sent. */
  status: number;
  /** The message sent to the client (it names the refused host or origin). */
  message: string;
}
