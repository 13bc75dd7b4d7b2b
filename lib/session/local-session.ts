import { randomBytes } from 'node:crypto';
import { isClientResultFor } from '../protocol/client-requests.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { ClientView } from '../server/client-view.js';
import type { OutgoingRequestOptions, RequestChannel } from '../server/request-channel.js';
import { RequestContext } from '../server/request-context.js';
import type { RequestInfo } from './session-manager.js';
import type { EventStore } from '../store/event-store.js';
import { formatLocalStreamKey, formatOutgoingRequestId } from './local-event-id.js';
import { OutboundStream, type OutboundStreamSettings } from './outbound-stream.js';
import { RetainedStreams } from './retained-streams.js';
import { InFlightRequests } from './inflight-requests.js';
import { SseChannel } from './sse-channel.js';
import type { SessionState } from '../store/session-state.js';

/** Resource subscriptions one session may hold, and the longest URI it may subscribe to. */
const MAX_SUBSCRIPTIONS = 1000;
const MAX_SUBSCRIPTION_URI_LENGTH = 8192;

interface PendingClientRequest {
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
}

export interface LocalSessionSettings {
  streamCacheSize: number;
  /** Bytes of JSON text the session keeps for resumes, over all its streams (and the cap of any one stream). */
  maxRetainedBytesPerSession: number;
  /** Bytes that may wait for a slow reader on one connection. */
  maxBufferedBytes: number;
  /** Told of every change in the bytes a session keeps for resumes (the process-wide budget). */
  onRetainedBytes: (delta: number) => void;
  maxRetainedStreams: number;
  completedStreamTtl: number;
  maxShadowStreams: number;
  /** Default `retry:` of a SEP-1699 connection close. */
  sseRetry: number;
  eventStore: EventStore | undefined;
  onError: (error: unknown) => void;
  /** Called when logLevel or subscriptions change, so a SessionStore can keep the new state. */
  onStateChange: (session: LocalSession) => void;
  /** Called when a request's reader fell too far behind to resume (without an EventStore): the request is cancelled. */
  onStreamAbandoned: (session: LocalSession, requestId: RequestId) => void;
}

/** One live session: its state, its streams, its in-flight requests and its pending requests to the client. */
export class LocalSession implements ClientView {
  readonly id: string;
  readonly state: SessionState;
  lastActivity: number;
  /** When the state was last written to the SessionStore (epoch ms). */
  lastPersisted: number;
  closed = false;
  /** DELETE is removing this session: it serves nothing more and writes no more state. */
  closing = false;
  readonly standalone: OutboundStream;
  /** The request streams kept for resumes (running, and finished ones until evicted), oldest first. */
  readonly streams = new RetainedStreams();
  readonly inflight = new InFlightRequests<InFlightRequest>();
  private readonly pending = new Map<RequestId, PendingClientRequest>();
  /** Keep-alive-only GET connections waiting to take over the standalone stream, oldest first. */
  private readonly shadows: Array<{ channel: SseChannel; afterSeq: number | undefined }> = [];
  /**
   * Random per session object: part of every local event id and outgoing request id, so that a copy restored on
   * another instance (or after an idle drop) never reuses the ids of an earlier copy.
   */
  readonly incarnation = randomBytes(4).toString('hex');
  private nextStreamIndex = 1;
  private nextOutgoingId = 1;
  private readonly settings: LocalSessionSettings;
  /** What each of this session's streams is made with (one object and one callback for all of them). */
  private readonly streamSettings: OutboundStreamSettings;
  /** Bytes of JSON text this session's streams keep for resumes. */
  retainedBytes = 0;

  constructor(id: string, state: SessionState, settings: LocalSessionSettings, now: number) {
    this.id = id;
    this.state = state;
    this.settings = settings;
    this.lastActivity = now;
    this.lastPersisted = now;
    this.streamSettings = {
      cacheLimit: settings.streamCacheSize,
      cacheByteLimit: settings.maxRetainedBytesPerSession,
      maxBufferedBytes: settings.maxBufferedBytes,
      sseRetry: settings.sseRetry,
      eventStore: settings.eventStore,
      onStoreError: settings.onError,
      onCacheBytes: (delta) => this.retained(delta),
      onAbandoned: (stream) => settings.onStreamAbandoned(this, stream.requestId!),
    };
    this.standalone = this.newStream(0);
    // When the live GET connection goes away, the newest waiting one takes over (and gets what it missed).
    this.standalone.onListenerDetached = () => this.promoteShadow();
  }

  get sessionId(): string {
    return this.id;
  }
  get protocolVersion(): string {
    return this.state.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.state.clientCapabilities;
  }
  get clientInfo(): Implementation | undefined {
    return this.state.clientInfo;
  }
  get logLevel(): LoggingLevel | undefined {
    return this.state.logLevel;
  }
  get sseRetry(): number {
    return this.settings.sseRetry;
  }
  get logOnlyWhenLevelSet(): boolean {
    return false;
  }

  setLogLevel(level: LoggingLevel): void {
    this.state.logLevel = level;
    this.settings.onStateChange(this);
  }

  subscribe(uri: string): void {
    if (uri.length > MAX_SUBSCRIPTION_URI_LENGTH) {
      throw new McpError(ErrorCode.InvalidParams, `resources/subscribe: the URI is longer than ${MAX_SUBSCRIPTION_URI_LENGTH} characters`);
    }
    if (!this.state.subscriptions.includes(uri)) {
      if (this.state.subscriptions.length >= MAX_SUBSCRIPTIONS) {
        throw new McpError(ErrorCode.InvalidParams, `resources/subscribe: a session may hold at most ${MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from some first`);
      }
      this.state.subscriptions.push(uri);
      this.settings.onStateChange(this);
    }
  }

  unsubscribe(uri: string): void {
    const at = this.state.subscriptions.indexOf(uri);
    if (at >= 0) {
      this.state.subscriptions.splice(at, 1);
      this.settings.onStateChange(this);
    }
  }

  /** True while a client is connected to a request in progress: the session is in use even if silent. */
  hasConnectedRequest(): boolean {
    for (const { stream } of this.inflight.list()) if (stream.listener?.isOpen) return true;
    return false;
  }

  /** A new stream for a POST request, retained after completion for resumes (bounded). */
  openStream(now: number): OutboundStream {
    const stream = this.newStream(this.nextStreamIndex++);
    this.streams.add(stream);
    if (this.streams.size > this.settings.maxRetainedStreams) this.evictStreams(now, true);
    return stream;
  }

  /**
   * Drops completed streams past their TTL, or, when `overCapacity`, the oldest completed ones while the session
   * holds more than `maxRetainedStreams` streams or more than `maxRetainedBytesPerSession` bytes.
   */
  evictStreams(now: number, overCapacity = false): void {
    // A new stream over capacity: usually the oldest stream is finished and goes alone (no walk).
    if (overCapacity) {
      const oldest = this.streams.oldest();
      if (oldest?.completed) {
        this.forgetStream(oldest);
        if (!this.overBudget()) return;
      }
    }
    for (const stream of this.streams.values()) {
      if (!stream.completed) continue;
      const expired = now - stream.completedAt >= this.settings.completedStreamTtl;
      if (expired || (overCapacity && this.overBudget())) this.forgetStream(stream);
      // Streams are in creation order, so past the first live one the rest are newer: stop scanning.
      else if (overCapacity) break;
    }
  }

  /** Drops the oldest completed stream; false when none is left to drop. */
  evictOldestCompleted(): boolean {
    for (const stream of this.streams.values()) {
      if (!stream.completed) continue;
      this.forgetStream(stream);
      return true;
    }
    return false;
  }

  private overBudget(): boolean {
    return this.streams.size > this.settings.maxRetainedStreams || this.retainedBytes > this.settings.maxRetainedBytesPerSession;
  }

  private forgetStream(stream: OutboundStream): void {
    this.streams.remove(stream);
    stream.releaseCache();
  }

  /** A stream's recent-events log grew or shrank by `delta` bytes. */
  private retained(delta: number): void {
    this.retainedBytes += delta;
    this.settings.onRetainedBytes(delta);
    if (delta > 0 && this.retainedBytes > this.settings.maxRetainedBytesPerSession && !this.closed) {
      // Over its own budget: the session's oldest finished streams go first (its live ones cap themselves).
      while (this.retainedBytes > this.settings.maxRetainedBytesPerSession && this.evictOldestCompleted());
    }
  }

  /** Opens the GET stream; a second GET while one is live gets a keep-alive-only shadow, never a 409. */
  connectStandalone(primingRetry: number | undefined, afterSeq?: number): SseChannel {
    const primary = this.standalone.listener;
    if (!primary || !primary.isOpen) {
      if (afterSeq === undefined) return this.standalone.connect(primingRetry);
      return this.standalone.resumeAfter(afterSeq);
    }
    const shadow = { channel: new SseChannel(this.settings.maxBufferedBytes), afterSeq };
    shadow.channel.onDetach(() => {
      const at = this.shadows.indexOf(shadow);
      if (at >= 0) this.shadows.splice(at, 1);
    });
    this.shadows.push(shadow);
    if (this.shadows.length > this.settings.maxShadowStreams) this.shadows.shift()!.channel.end();
    return shadow.channel;
  }

  private promoteShadow(): void {
    if (this.closed) return;
    for (let next = this.shadows.pop(); next; next = this.shadows.pop()) {
      if (!next.channel.isOpen) continue;
      this.standalone.adoptExisting(next.channel, next.afterSeq);
      return;
    }
  }

  /** Requests in progress in this session (`maxRequestsPerSession` bounds them). */
  get inflightCount(): number {
    return this.inflight.size;
  }

  sendToClient(method: string, params: Record<string, unknown>, stream: OutboundStream, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ServerError, 'The session is closed'));
    const id = formatOutgoingRequestId(this.incarnation, this.nextOutgoingId++);
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        this.pending.delete(id);
        cleanup();
        reject(signal?.reason ?? new McpError(ErrorCode.ServerError, `${method} was cancelled`));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          cleanup();
          reject(new McpError(ErrorCode.InternalError, `The client did not answer ${method} within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      }
      this.pending.set(id, { method, resolve, reject, cleanup });
      if (!stream.send({ jsonrpc: '2.0', id, method, params })) {
        this.pending.delete(id);
        cleanup();
        reject(new McpError(ErrorCode.InternalError, `${method} could not be sent: its params cannot be serialised as JSON`));
      }
    });
  }

  /**
   * A client's answer to one of our requests; false (nothing done) for ids no request here waits on. A result that does not have
   * the shape its method's result must have (the same check as the 2026-07-28 inputResponses) fails the handler's
   * call with -32602 instead of reaching it.
   */
  settleClientResponse(response: JsonRpcResponse): boolean {
    if (response.id === undefined || response.id === null) return false;
    const pending = this.pending.get(response.id);
    if (!pending) return false;
    this.pending.delete(response.id);
    pending.cleanup();
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else if (isClientResultFor(pending.method, response.result)) pending.resolve(response.result);
    else pending.reject(new McpError(ErrorCode.InvalidParams, `The client's result for ${pending.method} is malformed: it does not have the shape the MCP schema gives that result`));
    return true;
  }

  /** `notifications/cancelled`: the handler's signal fires and no response is sent. False when it does not run here. */
  cancel(requestId: RequestId, reason: unknown, now: number): boolean {
    const entry = this.inflight.delete(requestId);
    if (!entry) return false;
    entry.ctx.abort(reason ?? 'Cancelled by the client');
    entry.stream.complete(now);
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const ended = new McpError(ErrorCode.ServerError, 'The session ended');
    for (const { ctx } of this.inflight.list()) ctx.abort(ended);
    this.inflight.clear();
    for (const pending of this.pending.values()) {
      pending.cleanup();
      pending.reject(ended);
    }
    this.pending.clear();
    for (const stream of this.streams.values()) {
      stream.disconnect();
      stream.releaseCache();
    }
    this.streams.clear();
    this.standalone.disconnect();
    this.standalone.releaseCache();
    for (const shadow of this.shadows.splice(0)) shadow.channel.end();
  }

  private newStream(index: number): OutboundStream {
    const localKey = formatLocalStreamKey(this.incarnation, index);
    return new OutboundStream(index, localKey, `${this.id}/${localKey}`, this.streamSettings);
  }
}

/**
 * A request running in the session: its context, its stream, and the channel its handler talks through (one object
 * for the three: one is made per request). It also carries the answers of an emulated multi-round-trip: when a
 * handler ends with `ctx.inputRequired(...)` on a session, the session asks the client itself and runs the handler
 * again with the answers (keyed requests resolve from them) and its state. A class, not an object literal: it points
 * at the whole request (see RequestContext).
 */
export class InFlightRequest implements RequestChannel {
  readonly ctx: RequestContext;
  /** Answers by key of the rounds asked so far (made by the first round: most requests never ask). */
  answers: Record<string, unknown> | undefined = undefined;
  requestState: unknown = undefined;

  constructor(
    private readonly session: LocalSession,
    readonly stream: OutboundStream,
    request: JsonRpcRequest,
    info: RequestInfo,
  ) {
    this.ctx = new RequestContext(request, session, this, info);
  }

  notify(notification: Parameters<RequestChannel['notify']>[0]): Promise<void> | undefined {
    if (this.stream.completed) return undefined;
    this.stream.send(notification);
    return this.stream.waitForRoom();
  }

  request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
    const answers = this.answers;
    if (options.key !== undefined && answers !== undefined && Object.hasOwn(answers, options.key)) {
      return Promise.resolve(answers[options.key] as Record<string, unknown>);
    }
    return this.session.sendToClient(method, params, this.stream, options);
  }

  closeStream(retryMs?: number): void {
    this.stream.closeConnection(retryMs ?? this.session.sseRetry);
  }

  closeStandaloneStream(retryMs?: number): void {
    this.session.standalone.closeConnection(retryMs ?? this.session.sseRetry);
  }
}
