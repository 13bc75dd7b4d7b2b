import { createMcpMiddleware, type McpRequestHandler } from './http/mcp-middleware.js';
import type { McpMiddlewareOptions } from './http/options.js';
import { LocalSessionManager } from './session/local-session-manager.js';
import { NeverSessionManager } from './session/never-session-manager.js';

/**
 * Serves MCP over Streamable HTTP at `options.path` (default `/mcp`): POST for client messages, GET for the
 * session's stream and resumption, DELETE to end a session. Mount it after your auth middleware:
 * `app.use(mcpMiddleware({ server }))`.
 *
 * This is where the layers meet: the HTTP layer knows only the `SessionManager` interface, and the default
 * managers (sessions in memory, or none with `legacySessions: false`) are chosen here, reporting to `onError`.
 */
export function mcpMiddleware(options: McpMiddlewareOptions): McpRequestHandler {
  return createMcpMiddleware(options, (legacySessions, onError) =>
    legacySessions ? new LocalSessionManager({ onError }) : new NeverSessionManager({ onError }),
  );
}
