import type { IncomingMessage } from 'node:http';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { AuthInfo } from '../protocol/types.js';
import type { McpServer } from '../server/mcp-server.js';
import { RequestStateCodec } from '../server/request-state.js';
import { LocalSessionManager } from '../session/local-session-manager.js';
import { NeverSessionManager } from '../session/never-session-manager.js';
import type { SessionManager } from '../session/session-manager.js';
import { StatelessDispatcher } from '../session/stateless-dispatcher.js';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_SSE_RETRY } from '../defaults.js';
import { LOOPBACK_HOSTS, normaliseHosts, type HostGuardSettings } from './host-guard.js';
import { KeepAliveTicker } from './keep-alive.js';
import { ListenRegistry } from './subscriptions-listen.js';

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
  /**
   * Serve 2025-era clients (`initialize`, `Mcp-Session-Id`) with sessions. `false` serves them statelessly through
   * a `NeverSessionManager`: no session ids, GET and DELETE answer 405. 2026-07-28 requests are always stateless.
   * Defaults to `true`.
   */
  legacySessions?: boolean;
  /**
   * Shape of stateless (2026-07-28) replies: `'auto'` answers JSON unless the handler sends a progress or log
   * message first (then SSE); `'sse'` always streams; `'json'` always answers one JSON body and drops
   * notifications. Errors are always JSON with their HTTP status. Defaults to `'auto'`.
   */
  responseMode?: 'auto' | 'sse' | 'json';
  /**
   * Secret that signs (HMAC-SHA256) the `requestState` of multi-round-trip requests, so clients cannot alter it.
   * Every instance of a cluster needs the same secret (at least 16 bytes). Defaults to a random secret per process.
   */
  requestStateSecret?: string | Buffer;
  /** Milliseconds a `requestState` stays valid. Defaults to `600000` (10 minutes). */
  requestStateTtlMs?: number;
  /** Most `subscriptions/listen` streams open at once; more get 503. Defaults to `1024`. */
  maxSubscriptions?: number;
  /**
   * Most resource URIs one `subscriptions/listen` request may name in `notifications.resourceSubscriptions`; more
   * get 400 / -32602. Defaults to `1000`.
   */
  maxListenFilterUris?: number;
  /** Largest total length (characters) of those URIs; more gets 400 / -32602. Defaults to `65536` (64 KiB). */
  maxListenFilterBytes?: number;
  /**
   * Bytes of JSON text that may wait for a client that reads an SSE stream slowly. Past it, a stream that can be
   * resumed (an EventStore, or the events still in memory) ends its connection with a retry hint and the client
   * resumes with `Last-Event-ID`; one that cannot ends with an error response and its request is cancelled.
   * `ctx.progress`/`ctx.log` return promises that wait for room, for handlers that emit a lot. Defaults to
   * `1048576` (1 MiB).
   */
  maxBufferedBytesPerStream?: number;
  /**
   * Called with errors no client can be told about: unexpected failures (the client gets a bare 500) and handler
   * exceptions of stateless requests (the client gets -32603). Defaults to `console.error`.
   */
  onError?: (error: unknown) => void;
  /**
   * Who is asking, from the request: sessions, persisted stateless streams and `requestState` belong to the
   * principal that created them, and any other principal gets 404 (or a refusal). Return a stable user or subject
   * id when one OAuth client serves many users. Defaults to `req.auth?.clientId`.
   */
  principalOf?: (req: IncomingMessage & { auth?: AuthInfo }) => string | undefined;
  /**
   * URL of this server's protected resource metadata (RFC 9728), named as `resource_metadata` in the step-up
   * challenge (403 `insufficient_scope`) a request gets when the tool, prompt or resource it names has
   * `requiredScopes` its token lacks. Defaults to the `resourceMetadataUrl` of the `requireBearerAuth` that
   * authenticated the request, if any.
   */
  resourceMetadataUrl?: string;
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
  responseMode: 'auto' | 'sse' | 'json';
  /** Serves requests with no session (2026-07-28, and 2025-era when sessions are off). */
  stateless: StatelessDispatcher;
  /** The session manager when it is a NeverSessionManager (persisted stateless streams, replay). */
  never: NeverSessionManager | undefined;
  listens: ListenRegistry;
  maxBufferedBytes: number;
  onError: (error: unknown) => void;
  principalOf: (req: IncomingMessage & { auth?: AuthInfo }) => string | undefined;
  resourceMetadataUrl: string | undefined;
  /** Argument → `x-mcp-header` name of the tool a tools/call names (SEP-2243 `Mcp-Param-*`). */
  paramHeaders(request: JsonRpcRequest): ReadonlyMap<string, string> | undefined;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_SSE_KEEP_ALIVE = 15_000;

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
  const legacySessions = options.legacySessions ?? true;
  const sessionManager = options.sessionManager ?? (legacySessions ? new LocalSessionManager() : new NeverSessionManager());
  if (!legacySessions && sessionManager.stateful) {
    throw new TypeError('legacySessions: false needs a stateless session manager: drop the sessionManager option or pass a NeverSessionManager.');
  }
  const maxBufferedBytes = options.maxBufferedBytesPerStream ?? DEFAULT_MAX_BUFFERED_BYTES;
  for (const [name, value] of Object.entries({ maxBufferedBytesPerStream: maxBufferedBytes, maxListenFilterUris: options.maxListenFilterUris, maxListenFilterBytes: options.maxListenFilterBytes })) {
    if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new TypeError(`${name} must be a positive number (got ${String(value)}).`);
  }
  sessionManager.attach(options.server, { sseRetry, maxBufferedBytes });
  const server = options.server;
  const responseMode = options.responseMode ?? 'auto';
  if (!['auto', 'sse', 'json'].includes(responseMode)) throw new TypeError(`responseMode must be 'auto', 'sse' or 'json' (got ${String(responseMode)}).`);
  const cache = server.options.cache;
  const codec = new RequestStateCodec(options.requestStateSecret, options.requestStateTtlMs ?? 600_000);
  const onError = options.onError ?? ((error: unknown) => console.error('[mcp-express]', error));
  for (const [name, value] of Object.entries({ sseKeepAlive: options.sseKeepAlive, sseRetry, requestStateTtlMs: options.requestStateTtlMs, maxSubscriptions: options.maxSubscriptions })) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new TypeError(`${name} must be a number of at least 0 (got ${String(value)}).`);
  }
  const paramHeaderCache = new WeakMap<object, ReadonlyMap<string, string>>();
  return {
    responseMode,
    onError,
    principalOf: options.principalOf ?? ((req) => req.auth?.clientId),
    resourceMetadataUrl: options.resourceMetadataUrl,
    stateless: new StatelessDispatcher(server, codec, { ttlMs: cache?.ttlMs ?? 0, cacheScope: cache?.cacheScope ?? 'public' }, onError),
    never: sessionManager instanceof NeverSessionManager ? sessionManager : undefined,
    listens: new ListenRegistry(options.maxSubscriptions ?? 1024, options.maxListenFilterUris ?? 1000, options.maxListenFilterBytes ?? 64 * 1024),
    maxBufferedBytes,
    paramHeaders(request) {
      if (request.method !== 'tools/call' || typeof request.params?.name !== 'string') return undefined;
      const descriptor = server.toolDescriptor(request.params.name);
      if (!descriptor) return undefined;
      let map = paramHeaderCache.get(descriptor);
      if (!map) {
        const found = new Map<string, string>();
        const properties = ((descriptor.inputSchema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {});
        for (const [argument, schema] of Object.entries(properties)) {
          if (typeof schema?.['x-mcp-header'] === 'string') found.set(argument, schema['x-mcp-header'] as string);
        }
        map = found;
        paramHeaderCache.set(descriptor, map);
      }
      return map;
    },
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
