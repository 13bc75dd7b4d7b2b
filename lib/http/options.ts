import type { IncomingMessage } from 'node:http';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { AuthInfo } from '../protocol/types.js';
import type { McpServer } from '../server/mcp-server.js';
import { RequestStateCodec } from '../server/request-state.js';
import type { SessionManager } from '../session/session-manager.js';
import { StatelessDispatcher } from '../session/stateless-dispatcher.js';
import { ServerEventRelay } from '../session/server-event-relay.js';
import { InMemoryMessageBus } from '../store/in-memory-message-bus.js';
import type { MessageBus } from '../store/message-bus.js';
import { defaultOnError, MIDDLEWARE_DEFAULTS } from '../defaults.js';
import { LOOPBACK_HOSTS, normaliseHosts, type HostGuardSettings } from './host-guard.js';
import { KeepAliveTicker } from './keep-alive.js';
import { resolveCors, type McpCorsOptions, type ResolvedCors } from './cors.js';
import { ListenRegistry } from './listen-registry.js';
import { TaskBusBridge } from '../tasks/task-bus-bridge.js';
import type { McpEvent, SessionLifecycleEvent } from '../observability/events.js';
import { Observer } from '../observability/observer.js';
import { RecencyList } from '../store/recency-list.js';

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
   * protection). A list replaces the defaults: keep the loopback names with
   * `allowedHosts: [...LOOPBACK_HOSTS, 'mcp.example.com']`. Defaults to `LOOPBACK_HOSTS`
   * (`['localhost', '127.0.0.1', '[::1]']`), any port. `false` turns the check off (only behind a proxy that checks
   * Host itself).
   */
  allowedHosts?: readonly string[] | false;
  /**
   * Exact origins (`https://app.example.com`) a browser's `Origin` header may name; others get 403. Requests
   * without `Origin` always pass. Defaults to any http(s) origin whose host is in `allowedHosts`. `false` turns the
   * check off. The origins of the `cors` option are allowed as well.
   */
  allowedOrigins?: readonly string[] | false;
  /**
   * CORS for browser pages on other origins: answers preflights (`OPTIONS`) and lets pages of `cors.origins` read
   * `Mcp-Session-Id`, `MCP-Protocol-Version` and `WWW-Authenticate`. When auth runs before the middleware, mount
   * `mcp.cors` before the auth (`app.use(mcp.cors)`), so preflights are answered before auth refuses them.
   * Defaults to off (no CORS headers; `OPTIONS` gets 405).
   */
  cors?: McpCorsOptions;
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
   * Most resource URIs one `subscriptions/listen` request may name in `notifications.resourceSubscriptions`, and
   * most task ids in `notifications.taskIds`; more get 400 / -32602. Defaults to `1000`.
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
   * Called with what happens, for metrics and logs (docs/observability.md): each JSON-RPC request's start and end
   * (method, tool, session, duration, outcome), sessions created, restored, expired and closed, streams resumed, and
   * requests refused by the Host/Origin checks. Runs inline: keep it fast. A hook that throws goes to `onError`; the
   * request goes on. Defaults to none (nothing is measured).
   */
  onEvent?: (event: McpEvent) => void;
  /**
   * OpenTelemetry spans: one per JSON-RPC request (`tools/call add`, with MCP attributes), continuing the trace
   * context of the request's `params._meta` or of its `traceparent` header, through the app's global tracer
   * provider and propagator. Needs the package `@opentelemetry/api` (an optional peer dependency), loaded when the
   * middleware is built: requests before `mcp.ready()` resolves are not traced. Defaults to `false`.
   */
  tracing?: boolean;
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
  /**
   * The message bus the instances of a deployment share: a client's answer to an elicitation, a cancellation or a
   * DELETE reaches the instance that needs it, and list_changed / resource updates emitted on one instance reach the
   * GET and `subscriptions/listen` streams of all, task status changes reach every instance's listen streams and
   * 2025-11-25 sessions, and a `tasks/update` or `tasks/cancel` wakes the handler on the instance running it at
   * once (unless the server's `tasks.signals` option is set). Give every instance the same shared bus
   * (`RedisMessageBus` from `mcp-express/redis`) to serve without sticky sessions. Defaults to a `new InMemoryMessageBus()` of this
   * middleware (one process).
   */
  bus?: MessageBus;
}

/** Options merged with their defaults, once, when the middleware is built. */
export interface ResolvedOptions {
  server: McpServer;
  path: string;
  sessionManager: SessionManager;
  enableJsonResponse: boolean;
  maxBodyBytes: number;
  guard: HostGuardSettings;
  cors: ResolvedCors | undefined;
  keepAlive: KeepAliveTicker;
  sseRetry: number;
  responseMode: 'auto' | 'sse' | 'json';
  /** Serves requests with no session (2026-07-28, and 2025-era when sessions are off). */
  stateless: StatelessDispatcher;
  listens: ListenRegistry;
  /** The server's change events from every instance (through the bus). */
  serverEvents: ServerEventRelay;
  /** Task status changes from every instance, and the bus signals of running tasks. */
  taskEvents: TaskBusBridge;
  /** `close()` was called: every request gets 503. */
  closing: boolean;
  /** Stateless requests running now: each entry ends its request with an error response (for `close()`). */
  statelessRuns: RecencyList<{ stop(): void }>;
  maxBufferedBytes: number;
  onError: (error: unknown) => void;
  /** The `onEvent` hook and tracing; `observer.active` is false when neither is on. */
  observer: Observer;
  principalOf: (req: IncomingMessage & { auth?: AuthInfo }) => string | undefined;
  resourceMetadataUrl: string | undefined;
  /** Argument → `x-mcp-header` name of the tool a tools/call names (SEP-2243 `Mcp-Param-*`). */
  paramHeaders(request: JsonRpcRequest): ReadonlyMap<string, string> | undefined;
}

/** Builds the session manager used when the `sessionManager` option is not given. */
export type DefaultSessionManagerFactory = (legacySessions: boolean, onError: (error: unknown) => void) => SessionManager;

/** Every option name, for the unknown-option warning. */
const KNOWN_OPTIONS: readonly (keyof McpMiddlewareOptions)[] = [
  'server',
  'path',
  'sessionManager',
  'enableJsonResponse',
  'maxBodyBytes',
  'allowedHosts',
  'allowedOrigins',
  'cors',
  'sseKeepAlive',
  'sseRetry',
  'legacySessions',
  'responseMode',
  'requestStateSecret',
  'requestStateTtlMs',
  'maxSubscriptions',
  'maxListenFilterUris',
  'maxListenFilterBytes',
  'maxBufferedBytesPerStream',
  'onError',
  'onEvent',
  'tracing',
  'principalOf',
  'resourceMetadataUrl',
  'bus',
];

/**
 * Checks the options and merges them with their defaults, once, when the middleware is built. Every check runs
 * before anything is changed (the session manager is attached to the server last), so an invalid option leaves
 * nothing half set up.
 */
export function resolveOptions(options: McpMiddlewareOptions, defaultSessionManager: DefaultSessionManagerFactory): ResolvedOptions {
  if (!options || typeof options.server?.handle !== 'function') {
    throw new TypeError('mcpMiddleware({ server }) needs an McpServer: const server = new McpServer({ name, version }).');
  }
  warnAboutUnknownOptions(options);
  const d = MIDDLEWARE_DEFAULTS;
  const path = options.path ?? d.path;
  if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`mcpMiddleware path must start with "/" (got "${String(path)}").`);
  const maxBodyBytes = options.maxBodyBytes ?? d.maxBodyBytes;
  if (!(maxBodyBytes > 0)) throw new TypeError('maxBodyBytes must be a positive number of bytes.');
  const maxBufferedBytes = options.maxBufferedBytesPerStream ?? d.maxBufferedBytesPerStream;
  for (const [name, value] of Object.entries({ maxBufferedBytesPerStream: maxBufferedBytes, maxListenFilterUris: options.maxListenFilterUris, maxListenFilterBytes: options.maxListenFilterBytes })) {
    if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new TypeError(`${name} must be a positive number (got ${String(value)}).`);
  }
  for (const [name, value] of Object.entries({ sseKeepAlive: options.sseKeepAlive, sseRetry: options.sseRetry, requestStateTtlMs: options.requestStateTtlMs, maxSubscriptions: options.maxSubscriptions })) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new TypeError(`${name} must be a number of at least 0 (got ${String(value)}).`);
  }
  const responseMode = options.responseMode ?? d.responseMode;
  if (!['auto', 'sse', 'json'].includes(responseMode)) throw new TypeError(`responseMode must be 'auto', 'sse' or 'json' (got ${String(responseMode)}).`);
  const sseRetry = options.sseRetry ?? d.sseRetry;
  const allowedHosts = options.allowedHosts === false ? undefined : normaliseHosts(options.allowedHosts ?? LOOPBACK_HOSTS);
  const allowedOrigins =
    options.allowedOrigins === false ? false : options.allowedOrigins?.map((origin) => origin.trim().toLowerCase().replace(/\/$/, ''));
  const cors = resolveCors(options.cors);
  const legacySessions = options.legacySessions ?? d.legacySessions;
  if (!legacySessions && options.sessionManager?.stateful) {
    throw new TypeError('legacySessions: false needs a stateless session manager: drop the sessionManager option or pass a NeverSessionManager.');
  }
  const server = options.server;
  const onError = options.onError ?? defaultOnError;
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new TypeError('onEvent must be a function (event) => void.');
  const observer = new Observer(options.onEvent, options.tracing ?? d.tracing, onError, (name) => server.toolDescriptor(name) !== undefined);
  const codec = new RequestStateCodec(options.requestStateSecret, options.requestStateTtlMs ?? d.requestStateTtlMs);
  const cache = server.options.cache;
  const bus = options.bus ?? new InMemoryMessageBus();
  if (typeof bus.publish !== 'function' || typeof bus.subscribe !== 'function') {
    throw new TypeError('bus must be a MessageBus (publish and subscribe), e.g. new RedisMessageBus(client) from mcp-express/redis.');
  }
  const sessionManager = options.sessionManager ?? defaultSessionManager(legacySessions, onError);
  // Side effects last: everything above has been checked.
  const serverEvents = new ServerEventRelay(server, bus, onError);
  const taskEvents = new TaskBusBridge(server, bus, onError, options.bus !== undefined);
  const onSessionEvent = options.onEvent ? (event: SessionLifecycleEvent) => observer.emit(event) : undefined;
  sessionManager.attach(server, { sseRetry, maxBufferedBytes, onError, bus, serverEvents, onSessionEvent });
  server.reportErrorsTo(onError);
  return {
    responseMode,
    onError,
    observer,
    principalOf: options.principalOf ?? ((req) => req.auth?.clientId),
    resourceMetadataUrl: options.resourceMetadataUrl,
    stateless: new StatelessDispatcher(server, codec, { ttlMs: cache?.ttlMs ?? 0, cacheScope: cache?.cacheScope ?? 'public' }, onError),
    listens: new ListenRegistry(options.maxSubscriptions ?? d.maxSubscriptions, options.maxListenFilterUris ?? d.maxListenFilterUris, options.maxListenFilterBytes ?? d.maxListenFilterBytes),
    serverEvents,
    taskEvents,
    closing: false,
    statelessRuns: new RecencyList(),
    maxBufferedBytes,
    paramHeaders(request) {
      const name = request.params?.name;
      return request.method === 'tools/call' && typeof name === 'string' ? server.toolParamHeaders(name) : undefined;
    },
    server,
    path,
    sessionManager,
    enableJsonResponse: options.enableJsonResponse ?? d.enableJsonResponse,
    maxBodyBytes,
    guard: { allowedHosts, allowedOrigins, corsOrigins: cors?.origins, checkedHosts: new Map() },
    cors,
    keepAlive: new KeepAliveTicker(options.sseKeepAlive ?? d.sseKeepAlive),
    sseRetry,
  };
}

/**
 * A Node warning (`process.on('warning')`, printed by default) for each option name mcpMiddleware does not know,
 * naming the closest known one: a misspelt limit would otherwise silently keep its default.
 */
function warnAboutUnknownOptions(options: object): void {
  for (const name of Object.keys(options)) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(name)) continue;
    const closest = closestName(name, KNOWN_OPTIONS);
    process.emitWarning(`mcpMiddleware: unknown option "${name}" is ignored${closest ? `; did you mean "${closest}"?` : '.'}`, { code: 'MCP_EXPRESS_UNKNOWN_OPTION' });
  }
}

/** The known name nearest to `name` (edit distance, case-insensitive), when it is near enough to be a typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // Near enough to be a typo or a near-synonym (maxBodySize → maxBodyBytes): under half the longer name.
  return best !== undefined && bestDistance < Math.max(name.length, best.length) / 2 ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
