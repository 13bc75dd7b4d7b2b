import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { clientCapabilityFor } from '../protocol/methods.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { negotiateVersion, PRIMING_MIN_VERSION } from '../protocol/versions.js';
import type { McpServer, ServerEvent } from '../server/mcp-server.js';
import { LOGGING_LEVELS, type LoggingLevel } from '../protocol/types.js';
import { InputRequiredSignal } from '../server/input-required.js';
import { toErrorResponse } from './error-response.js';
import { missingCapabilityError } from '../server/request-context.js';
import type { EventStore } from '../store/event-store.js';
import type { SessionStore } from '../store/session-store.js';
import { IMMEDIATE_STREAMS, type ImmediateStreams } from './immediate-streams.js';
import { InFlightRequest, LocalSession, type LocalSessionSettings } from './local-session.js';
import type { OutboundStream } from './outbound-stream.js';
import type { SseStream } from '../store/sse-event.js';
import { closedStream, replayFromStore } from './store-replay.js';
import { SessionNotFoundError, ShuttingDownError, StoreUnavailableError, TooManySessionsError } from './errors.js';
import type { RequestInfo, SessionManager, TransportSettings } from './session-manager.js';
import type { SessionState } from '../store/session-state.js';
import { isOutgoingRequestId, parseLocalEventId, parseLocalStreamKey } from './local-event-id.js';
import { defaultOnError, EVENT_STORE_DEFAULTS, LOCAL_SESSION_DEFAULTS, MIDDLEWARE_DEFAULTS } from '../defaults.js';
import { InMemoryMessageBus } from '../store/in-memory-message-bus.js';
import type { StreamLeases } from '../store/stream-leases.js';
import { LeaseKeeper, leaseDelayOption } from './lease-keeper.js';
import { waitWhile } from './wait-while.js';
import type { SessionLifecycleEvent } from '../observability/events.js';
import { isThenable } from '../server/handler-result.js';

export interface LocalSessionManagerOptions {
  /** A session with no request and no traffic on its GET stream for this long (ms) ends; its id then answers 404. Defaults to 1800000 (30 minutes). */
  sessionIdleTimeout?: number;
  /** How long (ms) a finished request's stream stays resumable with `Last-Event-ID`. Defaults to 60000. */
  completedStreamTtl?: number;
  /** Events kept in memory per stream for resumes. Defaults to 64. */
  streamCacheSize?: number;
  /** Streams kept per session for resumes; the oldest finished ones are dropped beyond it. Defaults to 64. */
  maxRetainedStreams?: number;
  /** More sessions than this are refused with 503. Defaults to 10000. */
  maxSessions?: number;
  /**
   * Largest JSON size (bytes) of what a session keeps from its `initialize`: the client's capabilities and its
   * `clientInfo` (name, version, title). A larger one is refused with 400 / -32602. Other initialize params are not
   * kept. Defaults to `16384` (16 KiB).
   */
  maxClientMetadataBytes?: number;
  /**
   * Requests one session may have in progress at once; one more is answered with a JSON-RPC error (-32000)
   * instead of being run. Defaults to `100`.
   */
  maxRequestsPerSession?: number;
  /**
   * Bytes of JSON text one session keeps for resumes (recent events of its streams, finished ones included).
   * Past it the oldest finished streams are dropped first; a resume of a dropped event gets an empty 200. It also
   * caps what any one stream keeps. Defaults to `4194304` (4 MiB).
   */
  maxRetainedBytesPerSession?: number;
  /**
   * The same over every session of this manager: past it, finished streams of the session holding the most are
   * dropped first. Defaults to `33554432` (32 MiB).
   */
  maxRetainedBytes?: number;
  /** Keep-alive-only GET streams allowed beside the live one per session. Defaults to 32. */
  maxShadowStreams?: number;
  /** Durable event log for resumes across reconnects and instances. Defaults to none (a per-stream memory cache). */
  eventStore?: EventStore;
  /** Where session state is kept so another instance can restore the session. Defaults to none. */
  sessionStore?: SessionStore;
  /**
   * Leases of running streams (with an `eventStore`), shared by the instances of a deployment: a resume of a stream
   * running on another instance follows it to its end, and one whose instance was lost ends with an error response
   * instead of waiting. Defaults to none: leases only this manager could read tell nothing (its own running streams
   * are resumed live), so without them a resume of a stream not running here replays what the store holds and ends.
   * Use `RedisStreamLeases` from `mcp-express/redis` across instances, or one `InMemoryStreamLeases` shared by the
   * managers of one process.
   */
  streamLeases?: StreamLeases;
  /** How long (ms) a running stream's lease lasts without renewal; renewed every third of it. Defaults to `10000`. */
  leaseTtlMs?: number;
  /**
   * How long (ms, 0 to 60000) a request runs before its stream's lease is taken (with `streamLeases`). A request
   * that completes sooner takes no lease at all (no lease commands). Until its lease is held a stream sends the
   * client no event: its priming event and early messages wait up to this long plus a quarter of it (at least
   * 1 ms) and the lease's round trip, so that a client never holds an id of a stream no instance could tell
   * running from lost. `0` takes the lease when the request starts and holds nothing back. Defaults to `10`.
   */
  leaseDelayMs?: number;
  /**
   * How often (ms) a resume of a stream that runs on another instance reads the `eventStore` for new events, until
   * the stream ends. Defaults to `100`.
   */
  remoteFollowInterval?: number;
  /**
   * How often (ms) the state of a session in use is written to the `sessionStore` again, so that a store with a
   * TTL keeps sessions that are active (state changes are written at once). Defaults to `300000` (5 minutes).
   */
  sessionStoreRefreshInterval?: number;
  /**
   * Called with store failures, handler failures and other errors that cannot reach a client. Defaults to the
   * `onError` of the `mcpMiddleware` it serves (whose own default is `console.error`).
   */
  onError?: (error: unknown) => void;
}

/** Rounds of emulated input_required in a session before the request fails (a handler that never settles). */
const MAX_INPUT_ROUNDS = 16;


const InitializeParamsSchema = z.object({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()),
  clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough(),
});

/** The default session manager: sessions in this process, optionally restorable from a `SessionStore`. */
export class LocalSessionManager implements SessionManager {
  readonly stateful = true;
  private readonly sessions = new Map<string, LocalSession>();
  private readonly restoring = new Map<string, Promise<LocalSession | undefined>>();
  private readonly idleTimeout: number;
  private readonly maxSessions: number;
  private readonly eventStore: EventStore | undefined;
  private readonly sessionStore: SessionStore | undefined;
  private readonly storeRefreshInterval: number;
  /** Errors no client can be told about: the `onError` option, else the middleware's (see `attach`). */
  private readonly onError = (error: unknown): void => (this.ownOnError ?? this.settings.onError)(error);
  private readonly ownOnError: ((error: unknown) => void) | undefined;
  private readonly sessionSettings: LocalSessionSettings;
  private readonly maxClientMetadataBytes: number;
  private readonly maxRequestsPerSession: number;
  private readonly maxRetainedBytes: number;
  /** Bytes of JSON text every session of this manager keeps for resumes. */
  private retainedBytes = 0;
  private server: McpServer | undefined;
  private settings: TransportSettings = detachedSettings();
  private sweepTimer: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  private detachServer: (() => void) | undefined;
  private controlSubscription: Promise<(() => Promise<void>) | undefined> | undefined;
  private controlSubscribeError: unknown;
  /** Leases of the streams running here (with an EventStore), and resumes of streams running elsewhere. */
  private readonly leases: LeaseKeeper;

  constructor(options: LocalSessionManagerOptions = {}) {
    this.idleTimeout = options.sessionIdleTimeout ?? LOCAL_SESSION_DEFAULTS.sessionIdleTimeout;
    this.maxSessions = options.maxSessions ?? LOCAL_SESSION_DEFAULTS.maxSessions;
    this.eventStore = options.eventStore;
    this.sessionStore = options.sessionStore;
    this.storeRefreshInterval = options.sessionStoreRefreshInterval ?? LOCAL_SESSION_DEFAULTS.sessionStoreRefreshInterval;
    this.ownOnError = options.onError;
    this.maxClientMetadataBytes = positive(options.maxClientMetadataBytes, 'maxClientMetadataBytes') ?? LOCAL_SESSION_DEFAULTS.maxClientMetadataBytes;
    this.maxRequestsPerSession = positive(options.maxRequestsPerSession, 'maxRequestsPerSession') ?? LOCAL_SESSION_DEFAULTS.maxRequestsPerSession;
    this.maxRetainedBytes = positive(options.maxRetainedBytes, 'maxRetainedBytes') ?? LOCAL_SESSION_DEFAULTS.maxRetainedBytes;
    this.leases = new LeaseKeeper({
      leases: options.streamLeases,
      ttlMs: positive(options.leaseTtlMs, 'leaseTtlMs') ?? LOCAL_SESSION_DEFAULTS.leaseTtlMs,
      delayMs: leaseDelayOption(options.leaseDelayMs, 'LocalSessionManager', LOCAL_SESSION_DEFAULTS.leaseDelayMs),
      keepMs: EVENT_STORE_DEFAULTS.ttlMs,
      followIntervalMs: positive(options.remoteFollowInterval, 'remoteFollowInterval') ?? LOCAL_SESSION_DEFAULTS.remoteFollowInterval,
      onError: this.onError,
    });
    const completedStreamTtl = options.completedStreamTtl ?? LOCAL_SESSION_DEFAULTS.completedStreamTtl;
    this.sessionSettings = {
      streamCacheSize: options.streamCacheSize ?? LOCAL_SESSION_DEFAULTS.streamCacheSize,
      maxRetainedBytesPerSession: positive(options.maxRetainedBytesPerSession, 'maxRetainedBytesPerSession') ?? LOCAL_SESSION_DEFAULTS.maxRetainedBytesPerSession,
      maxBufferedBytes: MIDDLEWARE_DEFAULTS.maxBufferedBytesPerStream,
      onRetainedBytes: (delta) => this.retained(delta),
      maxRetainedStreams: options.maxRetainedStreams ?? LOCAL_SESSION_DEFAULTS.maxRetainedStreams,
      completedStreamTtl,
      maxShadowStreams: options.maxShadowStreams ?? LOCAL_SESSION_DEFAULTS.maxShadowStreams,
      sseRetry: MIDDLEWARE_DEFAULTS.sseRetry,
      eventStore: this.eventStore,
      onError: this.onError,
      onStateChange: (session) => this.stateChanged(session),
      // A reader that fell too far behind to resume got an error response: the request is cancelled.
      onStreamAbandoned: (session, requestId) => this.cancelHere(session, requestId, 'The client read the response too slowly', Date.now()),
    };
    const sweepEvery = Math.min(30_000, Math.max(25, Math.min(this.idleTimeout, completedStreamTtl) / 4));
    this.sweepTimer = setInterval(() => this.sweep(Date.now()), sweepEvery);
    this.sweepTimer.unref();
  }

  attach(server: McpServer, settings: TransportSettings): void {
    if (this.server && this.server !== server) {
      throw new Error('This LocalSessionManager already serves another McpServer; give each mcpMiddleware its own manager.');
    }
    if (this.server) return;
    this.server = server;
    this.settings = settings;
    this.sessionSettings.sseRetry = settings.sseRetry;
    this.sessionSettings.maxBufferedBytes = settings.maxBufferedBytes;
    this.detachServer = settings.serverEvents.subscribe((event) => this.broadcast(event));
    this.controlSubscription = settings.bus.subscribe(SESSION_CONTROL_CHANNEL, (message) => this.onControl(message)).catch((error: unknown) => {
      this.controlSubscribeError = error;
      this.onError(error);
      return undefined;
    });
  }

  /** Resolves once messages from other instances are being received; rejects when the bus refused the subscription. */
  async ready(): Promise<void> {
    await this.controlSubscription;
    if (this.controlSubscribeError !== undefined) throw this.controlSubscribeError;
  }

  /** Number of sessions held in this process. */
  get size(): number {
    return this.sessions.size;
  }

  async initializeSession(request: JsonRpcRequest, info: RequestInfo): Promise<{ sessionId: string; stream: SseStream }> {
    const server = this.requireServer();
    const parsed = InitializeParamsSchema.safeParse(request.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new McpError(ErrorCode.InvalidParams, `Invalid initialize params: ${issue.path.join('.') || 'params'}: ${issue.message}`);
    }
    // Only what the session needs is kept, within a byte budget: an anonymous client must not pin megabytes of
    // initialize padding for the life of a session.
    const { name, version } = parsed.data.clientInfo;
    const title = (parsed.data.clientInfo as { title?: unknown }).title;
    const clientInfo: SessionState['clientInfo'] = typeof title === 'string' ? { name, version, title } : { name, version };
    const metadataBytes = jsonBytes(clientInfo) + jsonBytes(parsed.data.capabilities);
    if (metadataBytes > this.maxClientMetadataBytes) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid initialize params: capabilities and clientInfo take ${metadataBytes} bytes; this server keeps at most ${this.maxClientMetadataBytes} (LocalSessionManager option maxClientMetadataBytes)`,
      );
    }
    if (this.shuttingDown) throw new ShuttingDownError();
    if (this.sessions.size >= this.maxSessions) throw new TooManySessionsError(this.maxSessions);
    const state: SessionState = {
      protocolVersion: negotiateVersion(parsed.data.protocolVersion),
      clientInfo,
      clientCapabilities: parsed.data.capabilities,
      subscriptions: [],
      createdAt: Date.now(),
    };
    if (info.principal !== undefined) state.principal = info.principal;
    const sessionId = randomUUID();
    const now = Date.now();
    const session = new LocalSession(sessionId, state, this.sessionSettings, now);
    this.sessions.set(sessionId, session);
    if (this.sessionStore) {
      try {
        session.lastPersisted = now;
        await this.sessionStore.store(sessionId, state);
      } catch (error) {
        // A session no other instance could restore would break on the client's next request: 503, try again.
        this.onError(error);
        this.drop(session);
        throw new StoreUnavailableError('session store');
      }
    }
    this.report('session.created', sessionId);
    const stream = session.openStream(now);
    const channel = stream.connect(undefined);
    if (this.eventStore) this.leases.holdUntilStored(stream);
    if (this.primes(session)) stream.prime(this.settings.sseRetry);
    stream.send({ jsonrpc: '2.0', id: request.id, result: server.initializeResult(state.protocolVersion) });
    stream.complete(now);
    return { sessionId, stream: channel };
  }

  async hasSession(sessionId: string, info: RequestInfo): Promise<boolean> {
    try {
      await this.requireSession(sessionId, info);
      return true;
    } catch (error) {
      if (error instanceof SessionNotFoundError) return false;
      throw error;
    }
  }

  async closeSession(sessionId: string, info: RequestInfo): Promise<void> {
    const session = await this.requireSession(sessionId, info);
    // From now on the session serves nothing and writes no state, and its stored state goes before the session
    // does: a request arriving meanwhile can neither use nor restore what DELETE is removing.
    session.closing = true;
    try {
      if (this.sessionStore) await this.sessionStore.delete(sessionId);
    } catch (error) {
      // Not deleted from the store: the session goes on (the client may DELETE again once the store is back).
      session.closing = false;
      this.onError(error);
      throw new StoreUnavailableError('session store');
    }
    this.drop(session);
    this.report('session.closed', sessionId, 'deleted');
    // Copies of the session on other instances end too (their in-flight handlers are aborted).
    await this.publishControl({ type: 'close', sessionId });
  }

  async createStream(sessionId: string, request: JsonRpcRequest, info: RequestInfo): Promise<SseStream> {
    const session = this.ownedLocally(sessionId, info) ?? (await this.requireSession(sessionId, info));
    return this.openRequestStream(session, request, info);
  }

  /**
   * The HTTP layer opens request streams through `createStreamNow`, unless a subclass overrides `createStream`:
   * then its own version is called.
   * @internal
   */
  get [IMMEDIATE_STREAMS](): ImmediateStreams | undefined {
    return this.createStream === LocalSessionManager.prototype.createStream ? this : undefined;
  }

  /** @internal `createStream` for a session held here, done before it returns; undefined for one that is not. */
  createStreamNow(sessionId: string, request: JsonRpcRequest, info: RequestInfo): SseStream | undefined {
    const session = this.ownedLocally(sessionId, info);
    return session && this.openRequestStream(session, request, info);
  }

  /** A request's stream in its session, its handler started (or its refusal sent). */
  private openRequestStream(session: LocalSession, request: JsonRpcRequest, info: RequestInfo): SseStream {
    const now = Date.now();
    session.lastActivity = now;
    const stream = session.openStream(now);
    const channel = stream.connect(undefined);
    const refusal = this.refusalOf(session, request);
    // The lease comes first: while it is delayed, the stream holds back everything (the priming event too).
    if (this.eventStore) {
      if (refusal) this.leases.holdUntilStored(stream);
      else this.leases.take(stream, request.id);
    }
    if (this.primes(session)) stream.prime(this.settings.sseRetry);
    if (refusal) {
      stream.send(refusal);
      stream.complete(now);
      return channel;
    }
    const running = new InFlightRequest(session, stream, request, info);
    session.inflight.add(running);
    stream.requestId = request.id;
    this.dispatch(session, request, running);
    return channel;
  }

  async acceptMessage(sessionId: string, message: JsonRpcMessage, info: RequestInfo): Promise<void> {
    const session = await this.requireSession(sessionId, info);
    const now = Date.now();
    session.lastActivity = now;
    if (!('method' in message)) {
      if (session.settleClientResponse(message)) return;
      // The request it answers may be waiting on another copy of the session (another instance): there, it is
      // settled from the bus. An id this server never gives out, or an answer that cannot travel, has nobody
      // waiting for it and is dropped, as an answer to an unknown id always was.
      if (!isOutgoingRequestId(message.id) || !Number.isFinite(jsonBytes(message))) return;
      if (!(await this.publishControl({ type: 'response', sessionId, message }))) throw new StoreUnavailableError('message bus');
      return;
    }
    const params = message.params;
    switch (message.method) {
      case 'notifications/initialized':
        return;
      case 'notifications/cancelled':
        if (params && (typeof params.requestId === 'string' || typeof params.requestId === 'number')) {
          // The request may run on another instance: there, it is cancelled from the bus.
          if (
            !this.cancelHere(session, params.requestId, params.reason, now) &&
            !(await this.publishControl({ type: 'cancel', sessionId, requestId: params.requestId, reason: typeof params.reason === 'string' ? params.reason : undefined }))
          ) {
            throw new StoreUnavailableError('message bus');
          }
        }
        return;
      default:
        await this.requireServer().handleNotification(message.method, params, { sessionId, authInfo: info.authInfo });
    }
  }

  async createStandaloneStream(sessionId: string, info: RequestInfo): Promise<SseStream> {
    const session = await this.requireSession(sessionId, info);
    session.lastActivity = Date.now();
    return session.connectStandalone(this.primes(session) ? this.settings.sseRetry : undefined);
  }

  async resume(sessionId: string, lastEventId: string, info: RequestInfo): Promise<SseStream> {
    const session = await this.requireSession(sessionId, info);
    session.lastActivity = Date.now();
    const standaloneRetry = this.primes(session) ? this.settings.sseRetry : undefined;
    if (!this.eventStore) {
      const position = parseLocalEventId(lastEventId);
      if (!position) return closedStream();
      if (position.incarnation !== session.incarnation) {
        // An id of another copy of this session (before a restore or a failover). Its request streams are gone;
        // its GET stream goes on here: the client gets this copy's GET stream rather than silence.
        return position.index === 0 ? session.connectStandalone(standaloneRetry) : closedStream();
      }
      const stream = this.streamAt(session, position.index);
      if (!stream || !stream.canResumeAfter(position.seq)) return closedStream();
      if (stream === session.standalone) return session.connectStandalone(undefined, position.seq);
      return stream.resumeAfter(position.seq);
    }
    const streamId = this.eventStore.streamIdOf(lastEventId);
    if (!streamId || !streamId.startsWith(`${sessionId}/`)) return closedStream();
    const position = parseLocalStreamKey(streamId.slice(sessionId.length + 1));
    if (!position) return closedStream();
    if (position.incarnation !== session.incarnation) {
      if (position.index === 0) return session.connectStandalone(standaloneRetry);
      // Another copy of the session, on this instance before or on another one, runs (or ran) this request: replay
      // what it stored and follow it to its end (or to the lost-request error when its instance is gone).
      return this.followElsewhere(streamId, lastEventId);
    }
    const local = this.streamAt(session, position.index);
    if (!local) return replayFromStore(this.eventStore, lastEventId, this.onError);
    // A resume of the GET stream while another connection holds it waits as a shadow (no two connections knock
    // each other off in a loop, rmcp #659) and takes over, with what it missed, when that connection goes away.
    if (local === session.standalone && session.standalone.listener?.isOpen) return session.connectStandalone(undefined);
    return local.resumeFromStore(lastEventId);
  }

  protocolVersionOf(sessionId: string): string | undefined {
    return this.sessions.get(sessionId)?.state.protocolVersion;
  }

  /**
   * Graceful drain: no new sessions or restores; with an EventStore every open connection ends with a retry hint so
   * its client resumes on another instance (which follows the store); running handlers get `timeoutMs` to finish;
   * then each request still running ends with a -32603 error response (stored, so resumes elsewhere see it).
   * Without an EventStore the connections stay open until then, so their clients get the result or that error.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.shuttingDown = true;
    const retry = this.settings.sseRetry;
    if (this.eventStore) {
      for (const session of this.sessions.values()) {
        for (const { stream } of session.inflight.list()) stream.closeConnection(retry, true);
        session.standalone.closeConnection(retry, true);
      }
    }
    await waitWhile(() => this.hasInflight(), timeoutMs);
    const now = Date.now();
    for (const session of this.sessions.values()) {
      for (const { ctx, stream } of session.inflight.list()) {
        const requestId = ctx.requestId;
        session.inflight.delete(requestId);
        ctx.abort(new McpError(ErrorCode.InternalError, SHUT_DOWN_MESSAGE));
        stream.send(errorResponse(requestId, ErrorCode.InternalError, SHUT_DOWN_MESSAGE));
        stream.complete(now);
        if (this.eventStore) this.leases.releaseWhenStored(stream);
      }
    }
    // The final responses are in the store before the process may exit: resumes elsewhere read them there.
    await this.leases.settled();
  }

  private hasInflight(): boolean {
    for (const session of this.sessions.values()) if (session.inflight.size > 0) return true;
    return false;
  }

  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.leases.stop();
    this.detachServer?.();
    const unsubscribe = await this.controlSubscription;
    await unsubscribe?.().catch(this.onError);
    for (const session of this.sessions.values()) {
      session.close();
      this.report('session.closed', session.id, 'shutdown');
    }
    this.sessions.clear();
  }

  private dispatch(session: LocalSession, request: JsonRpcRequest, running: InFlightRequest): void {
    const { ctx, stream } = running;
    const finish = (message: JsonRpcMessage) => {
      if (session.inflight.delete(request.id, running) === undefined) return; // cancelled, or the session ended
      const now = Date.now();
      session.lastActivity = now; // a long request ends with a fresh idle period, not an expired session
      stream.send(message);
      stream.complete(now);
      if (this.eventStore) this.leases.releaseWhenStored(stream);
    };
    const fail = (error: unknown) => {
      if (error instanceof InputRequiredSignal) {
        this.answerInputRequired(session, request, running, error).then(finish, (next) => finish(toErrorResponse(request, next, this.onError)));
        return;
      }
      finish(toErrorResponse(request, error, this.onError));
    };
    try {
      const result = this.requireServer().handle(request.method, request.params, ctx);
      if (isThenable(result)) result.then((value) => finish({ jsonrpc: '2.0', id: request.id, result: value }), fail);
      else finish({ jsonrpc: '2.0', id: request.id, result });
    } catch (error) {
      fail(error);
    }
  }

  /**
   * A handler ended with `input_required` (a 2026-07-28 idiom) inside a session: ask the client here, on the
   * request's stream, then run the handler again with the answers, until it completes. One tool, both eras.
   */
  private async answerInputRequired(
    session: LocalSession,
    request: JsonRpcRequest,
    running: InFlightRequest,
    signal: InputRequiredSignal,
  ): Promise<JsonRpcMessage> {
    const server = this.requireServer();
    const { ctx, stream } = running;
    for (let round = 1; ; round++) {
      if (round > MAX_INPUT_ROUNDS) throw new McpError(ErrorCode.InternalError, `${request.method} asked for input more than ${MAX_INPUT_ROUNDS} times`);
      const entries = Object.entries(signal.inputRequests);
      for (const [, input] of entries) {
        const capability = clientCapabilityFor(input.method);
        if (capability && session.clientCapabilities[capability] === undefined) throw missingCapabilityError(capability);
      }
      const answers = await Promise.all(entries.map(([, input]) => session.sendToClient(input.method, input.params, stream, { signal: ctx.signal })));
      const known = (running.answers ??= {});
      entries.forEach(([key], index) => {
        known[key] = answers[index];
      });
      running.requestState = signal.state;
      try {
        return { jsonrpc: '2.0', id: request.id, result: await server.handle(request.method, request.params, ctx) };
      } catch (error) {
        if (!(error instanceof InputRequiredSignal)) throw error;
        signal = error;
      }
    }
  }

  /** The error response of a request the session cannot take now (its id in use, or too many in flight), if any. */
  private refusalOf(session: LocalSession, request: JsonRpcRequest): JsonRpcMessage | undefined {
    if (session.inflight.has(request.id)) {
      return errorResponse(request.id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(request.id)} is already in use by a request in progress; use a new id.`);
    }
    if (session.inflightCount >= this.maxRequestsPerSession) {
      return errorResponse(
        request.id,
        ErrorCode.ServerError,
        `This session already has ${this.maxRequestsPerSession} requests in progress (LocalSessionManager option maxRequestsPerSession); wait for one to finish or cancel one.`,
      );
    }
    return undefined;
  }

  private streamAt(session: LocalSession, index: number): OutboundStream | undefined {
    return index === 0 ? session.standalone : session.streams.get(index);
  }

  private primes(session: LocalSession): boolean {
    return session.state.protocolVersion >= PRIMING_MIN_VERSION;
  }

  private async requireSession(sessionId: string, info: RequestInfo): Promise<LocalSession> {
    const session = this.sessions.get(sessionId) ?? (await this.restore(sessionId));
    if (!session || !ownedBy(session, info)) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /** The session when this instance holds it and it belongs to the caller: the hot path, with no await. */
  private ownedLocally(sessionId: string, info: RequestInfo): LocalSession | undefined {
    const session = this.sessions.get(sessionId);
    if (session && !ownedBy(session, info)) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /** Rebuilds a session another instance created, from the SessionStore; concurrent calls share one load. */
  private restore(sessionId: string): Promise<LocalSession | undefined> {
    if (!this.sessionStore) return Promise.resolve(undefined);
    let pending = this.restoring.get(sessionId);
    if (!pending) {
      const store = this.sessionStore;
      pending = (async () => {
        let state: SessionState | undefined;
        try {
          state = await store.load(sessionId);
        } catch (error) {
          // The store is down or slow: the client retries (503), and the failure is reported.
          this.onError(error);
          throw new StoreUnavailableError('session store');
        }
        if (!state) return undefined;
        const existing = this.sessions.get(sessionId);
        if (existing) return existing;
        if (this.shuttingDown) throw new ShuttingDownError();
        if (this.sessions.size >= this.maxSessions) throw new TooManySessionsError(this.maxSessions);
        const session = new LocalSession(sessionId, { ...state, subscriptions: [...(state.subscriptions ?? [])] }, this.sessionSettings, Date.now());
        this.sessions.set(sessionId, session);
        this.report('session.restored', sessionId);
        return session;
      })().finally(() => this.restoring.delete(sessionId));
      this.restoring.set(sessionId, pending);
    }
    return pending;
  }

  /**
   * `logging/setLevel` or a resource (un)subscription changed a session: written to the store, and told to the
   * copies other instances hold, so that a call served there logs at the new level and an update reaches the GET
   * stream from every copy.
   */
  private stateChanged(session: LocalSession): void {
    this.persist(session);
    if (session.closing || session.closed) return;
    const { logLevel, subscriptions } = session.state;
    void this.publishControl({ type: 'state', sessionId: session.id, logLevel, subscriptions: [...subscriptions] });
  }

  private persist(session: LocalSession): void {
    if (!this.sessionStore || session.closing || session.closed) return;
    session.lastPersisted = Date.now();
    this.sessionStore.store(session.id, session.state).catch(this.onError);
  }

  /** Some session's recent-events logs grew or shrank; past `maxRetainedBytes` the largest session gives way. */
  private retained(delta: number): void {
    this.retainedBytes += delta;
    if (delta <= 0 || this.retainedBytes <= this.maxRetainedBytes) return;
    while (this.retainedBytes > this.maxRetainedBytes) {
      let largest: LocalSession | undefined;
      for (const session of this.sessions.values()) {
        if (!largest || session.retainedBytes > largest.retainedBytes) largest = session;
      }
      // Finished streams only: live ones cap themselves, and a session with none left stops the loop.
      if (!largest || !largest.evictOldestCompleted()) return;
    }
  }

  /** Sends a session message to the other instances; false (and reported to onError) when the bus refused it. */
  private async publishControl(message: SessionControl): Promise<boolean> {
    try {
      await this.settings.bus.publish(SESSION_CONTROL_CHANNEL, message);
      return true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  /** A session message from an instance: acted on when this instance holds a copy of that session. */
  private onControl(value: unknown): void {
    const message = value as Partial<SessionControl> | null;
    if (typeof message?.sessionId !== 'string') return;
    const session = this.sessions.get(message.sessionId);
    if (!session || session.closed) return;
    switch (message.type) {
      case 'response':
        if (message.message && typeof message.message === 'object') session.settleClientResponse(message.message);
        return;
      case 'cancel':
        if (typeof message.requestId === 'string' || typeof message.requestId === 'number') this.cancelHere(session, message.requestId, message.reason, Date.now());
        return;
      case 'close':
        this.drop(session);
        this.report('session.closed', session.id, 'deleted-elsewhere');
        return;
      case 'state':
        // Another copy changed the session: this copy takes the same level and subscriptions (not written again).
        if (message.logLevel === undefined || (typeof message.logLevel === 'string' && loggingLevels.has(message.logLevel))) {
          session.state.logLevel = message.logLevel as LoggingLevel | undefined;
        }
        if (Array.isArray(message.subscriptions) && message.subscriptions.every((uri) => typeof uri === 'string')) {
          session.state.subscriptions = message.subscriptions.slice(0, MAX_SYNCED_SUBSCRIPTIONS);
        }
        return;
    }
  }

  /** Cancels a request running here (its lease ends with it); false when it does not run here. */
  private cancelHere(session: LocalSession, requestId: RequestId, reason: unknown, now: number): boolean {
    const entry = session.inflight.get(requestId);
    if (!entry) return false;
    this.leases.release(entry.stream.streamId);
    return session.cancel(requestId, reason, now);
  }

  /** A resume of a stream another instance (or an earlier copy) runs: its stored events, then live to its end. */
  private followElsewhere(streamId: string, lastEventId: string): SseStream {
    return this.leases.follow(this.eventStore!, streamId, lastEventId);
  }

  private broadcast(event: ServerEvent): void {
    const now = Date.now();
    if (event.sessionId !== undefined) {
      // Meant for one session only (the status of a task it created): the copy held here, if any.
      this.sessions.get(event.sessionId)?.standalone.send(event.notification);
      return;
    }
    for (const session of this.sessions.values()) {
      if (event.resourceUri !== undefined && !session.state.subscriptions.includes(event.resourceUri)) continue;
      if (session.standalone.listener) session.lastActivity = now;
      session.standalone.send(event.notification);
    }
  }

  private drop(session: LocalSession): void {
    for (const { stream } of session.inflight.list()) this.leases.release(stream.streamId);
    session.close();
    this.sessions.delete(session.id);
  }

  private sweep(now: number): void {
    for (const session of this.sessions.values()) {
      // Idle means no traffic and no client waiting on a request: a request that waits only on the client (an
      // elicitation nobody answers) must not pin the session forever.
      if (now - session.lastActivity >= this.idleTimeout && !session.hasConnectedRequest()) {
        this.drop(session);
        this.report('session.expired', session.id);
        continue;
      }
      session.evictStreams(now);
      if (this.sessionStore && session.lastActivity > session.lastPersisted && now - session.lastPersisted >= this.storeRefreshInterval) {
        this.persist(session);
      }
    }
  }

  /** Tells the middleware's `onEvent` (when one is set) that a session began or ended here. */
  private report(type: SessionLifecycleEvent['type'], sessionId: string, reason?: SessionLifecycleEvent['reason']): void {
    const onSessionEvent = this.settings.onSessionEvent;
    if (!onSessionEvent) return;
    try {
      onSessionEvent(reason === undefined ? { type, sessionId } : { type, sessionId, reason });
    } catch (error) {
      this.onError(error);
    }
  }

  private requireServer(): McpServer {
    if (!this.server) throw new Error('LocalSessionManager is not attached to a server; pass it to mcpMiddleware({ server, sessionManager }).');
    return this.server;
  }
}


/** The error response of a request still running when a drain ends. */
const SHUT_DOWN_MESSAGE =
  'Internal error: the server instance handling this request shut down before it finished; the request may or may not have taken effect. Send it again if that is safe.';

/** What instances tell each other about a session (channel `session-control`). */
type SessionControl =
  | { type: 'response'; sessionId: string; message: JsonRpcResponse }
  | { type: 'cancel'; sessionId: string; requestId: RequestId; reason?: string }
  | { type: 'close'; sessionId: string }
  | { type: 'state'; sessionId: string; logLevel?: LoggingLevel; subscriptions: string[] };

/** Most subscriptions a copy takes from another instance's state message (a session holds at most 1000). */
const MAX_SYNCED_SUBSCRIPTIONS = 1000;

const loggingLevels: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/** The bus channel of session messages between instances. */
const SESSION_CONTROL_CHANNEL = 'session-control';

/** Settings until the manager is attached to a middleware: nothing crosses instances. */
function detachedSettings(): TransportSettings {
  return {
    sseRetry: MIDDLEWARE_DEFAULTS.sseRetry,
    maxBufferedBytes: MIDDLEWARE_DEFAULTS.maxBufferedBytesPerStream,
    onError: defaultOnError,
    bus: new InMemoryMessageBus(),
    serverEvents: { subscribe: () => () => undefined },
  };
}

/** Length of a value's JSON text (a measure of what keeping it costs); values that cannot be serialised count as huge. */
function jsonBytes(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** An optional positive number option; a TypeError naming it otherwise. */
function positive(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new TypeError(`LocalSessionManager option ${name} must be a positive number (got ${String(value)}).`);
  return value;
}

/** The session serves this caller: it is not being deleted, and it is theirs (or nobody's). */
function ownedBy(session: LocalSession, info: RequestInfo): boolean {
  return !session.closing && (session.state.principal === undefined || session.state.principal === info.principal);
}
