/**
 * The default of every option, in one place, with the reason for its value. Each option's JSDoc repeats its
 * default for readers of the API; the values themselves live only here.
 */

/** Reports an error no client can be told about: the default `onError` of every layer. */
export function defaultOnError(error: unknown): void {
  console.error('[mcp-express]', error);
}

// --- mcpMiddleware ----------------------------------------------------------------------------------------------

export const MIDDLEWARE_DEFAULTS = {
  /** The path the MCP spec's examples use. */
  path: '/mcp',
  /** Far above any real request; small enough that a body cannot exhaust memory. */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Below the 30-60 s idle timeouts of common proxies and load balancers. */
  sseKeepAlive: 15_000,
  /** How soon a client reconnects after a priming event or a server-side close: quick, without hammering. */
  sseRetry: 3000,
  legacySessions: true,
  enableJsonResponse: false,
  responseMode: 'auto' as const,
  /** Long enough for a person to answer an elicitation; short enough that a leaked state soon stops working. */
  requestStateTtlMs: 10 * 60_000,
  maxSubscriptions: 1024,
  /** As many URIs as a session may subscribe to. */
  maxListenFilterUris: 1000,
  /** 1000 URIs of 64 characters; bounds what a listen stream holds for its life. */
  maxListenFilterBytes: 64 * 1024,
  /**
   * Bytes of JSON text that may wait for a slow reader on one SSE connection. Large enough for any normal reply
   * in flight; small enough that a client that stops reading cannot pin memory.
   */
  maxBufferedBytesPerStream: 1024 * 1024,
  /**
   * How long `close()` lets running handlers finish before it ends them with an error: most tool calls finish well
   * within it, and it stays below the 30 s most orchestrators wait between SIGTERM and SIGKILL.
   */
  drainTimeout: 10_000,
  /** Opt-in: loading @opentelemetry/api and starting spans costs something on every request. */
  tracing: false,
} as const;

/**
 * Host names the Host check allows when `allowedHosts` is not given: loopback only, any port (DNS rebinding
 * protection). Exported as `LOOPBACK_HOSTS`, so a list of public names can keep them:
 * `allowedHosts: [...LOOPBACK_HOSTS, 'mcp.example.com']`.
 */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

export const CORS_DEFAULTS = {
  /** Chromium caps `Access-Control-Max-Age` at two hours; longer values buy nothing there. */
  maxAge: 7200,
  /** Bearer tokens travel in `Authorization`, which needs no credentials mode; cookies are opt-in. */
  credentials: false,
} as const;

// --- LocalSessionManager ----------------------------------------------------------------------------------------

export const LOCAL_SESSION_DEFAULTS = {
  /** A client gone for half an hour is gone; a busy one never gets near it. */
  sessionIdleTimeout: 30 * 60_000,
  /** Time for a client whose connection dropped at the end of a request to come back for the result. */
  completedStreamTtl: 60_000,
  streamCacheSize: 64,
  maxRetainedStreams: 64,
  maxSessions: 10_000,
  maxShadowStreams: 32,
  sessionStoreRefreshInterval: 5 * 60_000,
  /** Real clients send well under 2 KB of capabilities and client info. */
  maxClientMetadataBytes: 16 * 1024,
  maxRequestsPerSession: 100,
  /** Resumes of normal replies never notice; megabyte echoes cannot pile up. */
  maxRetainedBytesPerSession: 4 * 1024 * 1024,
  maxRetainedBytes: 32 * 1024 * 1024,
  /**
   * How long a running request's stream lease lasts without renewal (renewed every third of it): a resume finds
   * the stream's instance lost at most this long after it died.
   */
  leaseTtlMs: 10_000,
  /**
   * How long a request runs before its stream lease is taken: most tool calls finish sooner and take none; a longer
   * one sends its first bytes this much later.
   */
  leaseDelayMs: 10,
  /** How often a resume of a stream running on another instance reads the EventStore for new events. */
  remoteFollowInterval: 100,
} as const;

// --- NeverSessionManager ----------------------------------------------------------------------------------------

export const NEVER_SESSION_DEFAULTS = {
  streamCacheSize: 64,
  streamCacheBytes: 4 * 1024 * 1024,
} as const;

// --- Stores ------------------------------------------------------------------------------------------------------

export const EVENT_STORE_DEFAULTS = {
  maxEventsPerStream: 1000,
  /** Longer than any reconnection; streams are short-lived. */
  ttlMs: 5 * 60_000,
  maxStreams: 10_000,
  maxBytes: 64 * 1024 * 1024,
  redisKeyPrefix: 'mcp:events:',
} as const;

export const STREAM_LEASES_DEFAULTS = {
  /** Released leases' records kept in memory at most (each kept a minute at most, `RELEASED_LEASE_KEEP_MS`). */
  maxReleased: 10_000,
} as const;

export const SESSION_STORE_DEFAULTS = {
  /** In memory: kept until deleted (the LocalSessionManager's idle timeout drops sessions). */
  inMemoryTtlMs: 0,
  /** In Redis: a day, refreshed while the session is in use. */
  redisTtlMs: 24 * 60 * 60_000,
  redisKeyPrefix: 'mcp:session:',
} as const;
