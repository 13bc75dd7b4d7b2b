import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { ClientView } from '../server/client-view.js';

/** The client of one stateless request: everything comes from the request's own envelope. */
export class StatelessClient implements ClientView {
  readonly sessionId = undefined;

  constructor(
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    readonly logLevel: LoggingLevel | undefined,
    /** 2026-07-28: no `notifications/message` unless the request's `_meta` sets a level. */
    readonly logOnlyWhenLevelSet: boolean,
    readonly serverRequestsUnavailable?: string,
  ) {}

  setLogLevel(): void {
    // A stateless 2025-era client may send logging/setLevel; there is no session to remember it in.
  }

  subscribe(): void {
    throw new McpError(ErrorCode.MethodNotFound, 'resources/subscribe needs a session; this server serves the request statelessly');
  }

  unsubscribe(): void {
    throw new McpError(ErrorCode.MethodNotFound, 'resources/unsubscribe needs a session; this server serves the request statelessly');
  }
}
