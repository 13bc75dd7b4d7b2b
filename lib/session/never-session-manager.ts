import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse } from '../protocol/jsonrpc.js';
import { randomUUID } from 'node:crypto';
import { principalTag } from '../server/request-state.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../protocol/jsonrpc.js';
import type { McpServer } from '../server/mcp-server.js';
import type { EventStore } from '../store/event-store.js';
import { defaultOnError, EVENT_STORE_DEFAULTS, LOCAL_SESSION_DEFAULTS, MIDDLEWARE_DEFAULTS, NEVER_SESSION_DEFAULTS } from '../defaults.js';
import { InMemoryMessageBus } from '../store/in-memory-message-bus.js';
import { OutboundStream } from './outbound-stream.js';
import type { SseChannel } from './sse-channel.js';
import type { SseStream } from '../store/sse-event.js';
import { closedStream } from './store-replay.js';
import { LeaseKeeper, leaseDelayOption } from './lease-keeper.js';
import { waitWhile } from './wait-while.js';
import type { StreamLeases } from '../store/stream-leases.js';
import type { PersistedReplies, RequestInfo, SessionManager, TransportSettings } from './session-manager.js';

export interface NeverSessionManagerOptions {
  /**
   * Makes stateless SSE replies resumable: every event is stored before it is sent, a client disconnect no
   * longer cancels the request, and `GET` with `Last-Event-ID` replays the stream on any instance.
   * Defaults to none (a disconnect cancels the request, as 2026-07-28 requires).
   */
  eventStore?: EventStore;
  /** Events kept in memory per live persisted stream, for resumes on this instance. Defaults to 64. */
  streamCacheSize?: number;
  /** Bytes of JSON text those events may take per stream; the oldest go first. Defaults to `4194304` (4 MiB). */
  streamCacheBytes?: number;
  /**
   * Leases of running persisted streams, shared by the instances of a deployment: a resume of a stream running on
   * another instance follows it to its end, and one whose instance was lost ends with an error response instead of
   * waiting. Defaults to none (a resume of a stream not running here replays what the store holds and ends); use
   * `RedisStreamLeases` from `mcp-express/redis` across instances, or one `InMemoryStreamLeases` shared by the
   * managers of one process.
   */
  streamLeases?: StreamLeases;
  /** How long (ms) a running stream's lease lasts without renewal; renewed every third of it. Defaults to `10000`. */
  leaseTtlMs?: number;
  /**
   * How long (ms, 0 to 60000) a request runs before its stream's lease is taken (with `streamLeases`); a request
   * that completes sooner takes none. Until its lease is held a stream sends the client no event (for up to this
   * long plus a quarter of it, at least 1 ms, and the lease's round trip). `0` takes the lease when the request
   * starts and holds nothing back. Defaults to `10`.
   */
  leaseDelayMs?: number;
  /** How often (ms) a resume of a stream running on another instance reads the `eventStore`. Defaults to `100`. */
  remoteFollowInterval?: number;
  /**
   * Called with store failures that cannot reach a client. Defaults to the `onError` of the `mcpMiddleware` it
   * serves (whose own default is `console.error`).
   */
  onError?: (error: unknown) => void;
}

/** `stateless:<principal tag>:<uuid>`: the stream ids of persisted stateless replies. */
const PERSISTED_STREAM_ID = /^stateless:(?:-|[0-9a-f]{16}):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


function persistedStreamId(principal: string | undefined): string {
  return `stateless:${principalTag(principal)}:${randomUUID()}`;
}

const NO_SESSIONS = 'NeverSessionManager has no sessions: every request is served on its own.';

/**
 * Serves every request statelessly: no session ids, GET and DELETE answer 405 (GET with `Last-Event-ID` replays
 * a persisted stream when an EventStore is configured). Scales out with no affinity.
 */
export class NeverSessionManager implements SessionManager {
  readonly stateful = false;
  readonly eventStore: EventStore | undefined;
  private readonly streamCacheSize: number;
  private readonly streamCacheBytes: number;
  /** Errors no client can be told about: the `onError` option, else the middleware's (see `attach`). */
  private readonly onError = (error: unknown): void => (this.ownOnError ?? this.settings.onError)(error);
  private readonly ownOnError: ((error: unknown) => void) | undefined;
  private readonly live = new Map<string, OutboundStream>();
  /**
   * Streams whose request finished while their last events are still being stored: a resume on this instance
   * replays them from the store once the writes are done (the store alone would not have the final response yet).
   */
  private readonly finishing = new Map<string, OutboundStream>();
  private replies: PersistedReplies | undefined;
  private readonly leases: LeaseKeeper;
  private settings: TransportSettings = {
    sseRetry: MIDDLEWARE_DEFAULTS.sseRetry,
    maxBufferedBytes: MIDDLEWARE_DEFAULTS.maxBufferedBytesPerStream,
    onError: defaultOnError,
    bus: new InMemoryMessageBus(),
    serverEvents: { subscribe: () => () => undefined },
  };

  constructor(options: NeverSessionManagerOptions = {}) {
    this.eventStore = options.eventStore;
    this.streamCacheSize = options.streamCacheSize ?? NEVER_SESSION_DEFAULTS.streamCacheSize;
    this.streamCacheBytes = options.streamCacheBytes ?? NEVER_SESSION_DEFAULTS.streamCacheBytes;
    this.ownOnError = options.onError;
    this.leases = new LeaseKeeper({
      leases: options.streamLeases,
      ttlMs: options.leaseTtlMs ?? LOCAL_SESSION_DEFAULTS.leaseTtlMs,
      delayMs: leaseDelayOption(options.leaseDelayMs, 'NeverSessionManager', LOCAL_SESSION_DEFAULTS.leaseDelayMs),
      keepMs: EVENT_STORE_DEFAULTS.ttlMs,
      followIntervalMs: options.remoteFollowInterval ?? LOCAL_SESSION_DEFAULTS.remoteFollowInterval,
      onError: this.onError,
    });
  }

  attach(_server: McpServer, settings: TransportSettings): void {
    this.settings = settings;
  }

  /** Resumable stateless replies when an EventStore is configured. */
  get persistedReplies(): PersistedReplies | undefined {
    if (!this.eventStore) return undefined;
    return (this.replies ??= {
      open: (primes, principal, requestId) => {
        const { stream, channel } = this.openPersistedStream(primes, principal, requestId);
        return {
          channel,
          send: (message) => {
            stream.send(message);
            return stream.waitForRoom();
          },
          complete: () => this.completePersistedStream(stream),
        };
      },
      resume: (lastEventId, principal) => this.resumeStateless(lastEventId, principal),
    });
  }

  /**
   * A persisted stream for one stateless request: primed (for 2025-11-25+), stored event by event, resumable with
   * `Last-Event-ID` until its store forgets it.
   */
  private openPersistedStream(primes: boolean, principal: string | undefined, requestId: RequestId): { stream: OutboundStream; channel: SseChannel } {
    if (!this.eventStore) throw new Error('NeverSessionManager: persisted replies need an eventStore');
    const streamId = persistedStreamId(principal);
    const stream = new OutboundStream(0, streamId, streamId, {
      cacheLimit: this.streamCacheSize,
      cacheByteLimit: this.streamCacheBytes,
      maxBufferedBytes: this.settings.maxBufferedBytes,
      sseRetry: this.settings.sseRetry,
      eventStore: this.eventStore,
      onStoreError: this.onError,
    });
    stream.requestId = requestId;
    this.live.set(streamId, stream);
    const channel = stream.connect(undefined);
    // The lease comes first: while it is delayed, the stream holds back everything (the priming event too).
    this.leases.take(stream, requestId);
    // Clients older than 2025-11-25 break on a priming event's empty data; their first id comes with the first message.
    if (primes) stream.prime(this.settings.sseRetry);
    return { stream, channel };
  }

  /** The request of a persisted stream finished. */
  private completePersistedStream(stream: OutboundStream): void {
    stream.complete(Date.now());
    this.live.delete(stream.streamId);
    this.finishing.set(stream.streamId, stream);
    void stream.stored().then(() => {
      if (this.finishing.get(stream.streamId) === stream) this.finishing.delete(stream.streamId);
    });
    this.leases.releaseWhenStored(stream);
  }

  /**
   * Replays a persisted stream after `lastEventId`, following it live when it runs on this instance. Only the
   * principal that made the request may resume it, and only stateless streams (never a session's, should the
   * store be shared with a LocalSessionManager).
   */
  private resumeStateless(lastEventId: string, principal: string | undefined): SseStream {
    const store = this.eventStore;
    const streamId = store?.streamIdOf(lastEventId);
    if (!store || !streamId || !PERSISTED_STREAM_ID.test(streamId) || !streamId.startsWith(`stateless:${principalTag(principal)}:`)) {
      return closedStream();
    }
    const local = this.live.get(streamId) ?? this.finishing.get(streamId);
    if (local) return local.resumeFromStore(lastEventId);
    // Running (or run) on another instance: what is stored, then live to its end, or its lost-request error.
    return this.leases.follow(store, streamId, lastEventId);
  }

  initializeSession(): Promise<{ sessionId: string; stream: SseStream }> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  async hasSession(): Promise<boolean> {
    return false;
  }
  closeSession(): Promise<void> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  createStream(_sessionId: string, _request: JsonRpcRequest, _info: RequestInfo): Promise<SseStream> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  acceptMessage(_sessionId: string, _message: JsonRpcMessage, _info: RequestInfo): Promise<void> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  createStandaloneStream(): Promise<SseStream> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  resume(): Promise<SseStream> {
    return Promise.reject(new Error(NO_SESSIONS));
  }
  protocolVersionOf(): string | undefined {
    return undefined;
  }
  /**
   * Graceful drain of persisted replies: each connection ends with a retry hint (the client resumes on another
   * instance, which follows the store), running handlers get `timeoutMs`, then each reply still running ends with a
   * stored -32603 error response.
   */
  async drain(timeoutMs: number): Promise<void> {
    for (const stream of this.live.values()) stream.closeConnection(this.settings.sseRetry, true);
    await waitWhile(() => this.live.size > 0, timeoutMs);
    for (const stream of [...this.live.values()]) {
      if (stream.requestId !== undefined) {
        stream.send(errorResponse(stream.requestId, ErrorCode.InternalError, 'Internal error: the server instance handling this request shut down before it finished; send it again if that is safe.'));
      }
      this.completePersistedStream(stream);
    }
    // The final responses are in the store before the process may exit: resumes elsewhere read them there.
    await this.leases.settled();
  }

  async shutdown(): Promise<void> {
    this.leases.stop();
    for (const stream of this.live.values()) stream.disconnect();
    this.live.clear();
    this.finishing.clear();
  }
}
