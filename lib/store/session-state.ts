import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';

/**
 * Everything that defines a session, as plain JSON-safe data, so that a `SessionStore` can keep it and any
 * instance can restore the session. Timers, streams and pending promises are rebuilt, never stored.
 */
export interface SessionState {
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities: ClientCapabilities;
  /** Set by `logging/setLevel`. */
  logLevel?: LoggingLevel;
  /** Resource URIs the client subscribed to. */
  subscriptions: string[];
  /** The principal (by default `req.auth.clientId`) that created the session; requests from another get 404. */
  principal?: string;
  /**
   * No longer written: a session keeps only the protocol version, capabilities and client name/version/title of
   * its `initialize` (within `maxClientMetadataBytes`). Optional so that states stored by 0.1 still load.
   * @deprecated
   */
  initializeParams?: Record<string, unknown>;
  /** Epoch milliseconds. */
  createdAt: number;
}
