import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';

/**
 * What a request handler may know and change about the client that sent the request. The session layer
 * implements it over a session's state (2025 era) or over the request's own `_meta` envelope (stateless).
 */
export interface ClientView {
  /** The negotiated (2025 era) or declared (2026-07-28) protocol version. */
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The minimum level of `notifications/message` the client wants; undefined sends every level (2025 era). */
  readonly logLevel: LoggingLevel | undefined;
  /** True when logging goes out only with a level set (2026-07-28: only when the request's `_meta` sets one). */
  readonly logOnlyWhenLevelSet: boolean;
  /** The session id, when there is a session. */
  readonly sessionId: string | undefined;
  /** Why the server cannot send this client requests (sampling, elicitation, roots), if it cannot. */
  readonly serverRequestsUnavailable?: string | undefined;
  setLogLevel(level: LoggingLevel): void;
  subscribe(uri: string): void;
  unsubscribe(uri: string): void;
}
