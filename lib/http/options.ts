import type { McpServer } from '../server/mcp-server.js';
import { LocalSessionManager } from '../session/local-session-manager.js';
import type { SessionManager } from '../session/session-manager.js';
import { LOOPBACK_HOSTS, normaliseHosts, type HostGuardSettings } from './host-guard.js';
import { KeepAliveTicker } from './keep-alive.js';

/** Options of `mcpMiddleware`. Only `server` is required. */
export interface McpMiddlewareOptions {
  /** The server to serve, built once at start-up. */
  server: McpServer;
  /** Path of the MCP endpoint, relative to where the middleware is mounted. Defaults to `'/mcp'`. */
  path?: string;
  /** Owns sessions and streams. Defaults to `new LocalSessionManager()` (in-memory sessions). */
  sessionManager?: SessionManager;
  /**
   * Answer a request with one `application/json` body instead of an SSE stream when its response is the first
   * message it produces (it falls back to SSE as soon as a progress, log or server→client request comes first).
   * Defaults to `false`.
   */
  enableJsonResponse?: boolean;
  /** Largest accepted request body in bytes; larger bodies get 413. Defaults to `4194304` (4 MiB). */
  maxBodyBytes?: number;
  /**
   * Host names (optionally `host:port`) the `Host` header may name; anything else gets 403 (DNS rebinding
   * protection). Defaults to `['localhost', '127.0.0.1', '[::1]']`, any port. `false` turns the check off (only
   * behind a proxy that checks Host itself).
   */
  allowedHosts?: string[] | false;
  /**
   * Exact origins (`https://app.example.com`) a browser's `Origin` header may name; others get 403. Requests
   * without `Origin` always pass. Defaults to any http(s) origin whose host is in `allowedHosts`. `false` turns the
   * check off.
   */
  allowedOrigins?: string[] | false;
  /** Milliseconds of silence after which an SSE stream gets a keep-alive comment; `0` turns it off. Defaults to `15000`. */
  sseKeepAlive?: number;
  /** The `retry:` (ms) of priming events, sent to clients of 2025-11-25 and later. Defaults to `3000`. */
  sseRetry?: number;
}

/** Options merged with their defaults, once, when the middleware is built. */
export interface ResolvedOptions {
  server: McpServer;
  path: string;
  sessionManager: SessionManager;
  enableJsonResponse: boolean;
  maxBodyBytes: number;
  guard: HostGuardSettings;
  keepAlive: KeepAliveTicker;
  sseRetry: number;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_SSE_KEEP_ALIVE = 15_000;
export const DEFAULT_SSE_RETRY = 3000;

export function resolveOptions(options: McpMiddlewareOptions): ResolvedOptions {
  if (!options || typeof options.server?.handle !== 'function') {
    throw new TypeError('mcpMiddleware({ server }) needs an McpServer: const server = new McpServer({ name, version }).');
  }
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new TypeError(`mcpMiddleware path must start with "/" (got "${path}").`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(maxBodyBytes > 0)) throw new TypeError('maxBodyBytes must be a positive number of bytes.');
  const sseRetry = options.sseRetry ?? DEFAULT_SSE_RETRY;
  const allowedHosts = options.allowedHosts === false ? undefined : normaliseHosts(options.allowedHosts ?? LOOPBACK_HOSTS);
  const allowedOrigins =
    options.allowedOrigins === false ? false : options.allowedOrigins?.map((origin) => origin.trim().toLowerCase().replace(/\/$/, ''));
  const sessionManager = options.sessionManager ?? new LocalSessionManager();
  sessionManager.attach(options.server, { sseRetry });
  return {
    server: options.server,
    path,
    sessionManager,
    enableJsonResponse: options.enableJsonResponse ?? false,
    maxBodyBytes,
    guard: { allowedHosts, allowedOrigins },
    keepAlive: new KeepAliveTicker(options.sseKeepAlive ?? DEFAULT_SSE_KEEP_ALIVE),
    sseRetry,
  };
}
