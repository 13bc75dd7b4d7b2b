import { randomUUID } from 'node:crypto';
import { principalTag } from '../server/request-state.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { McpServer } from '../server/mcp-server.js';
import type { EventStore } from '../store/event-store.js';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_SSE_RETRY } from '../defaults.js';
import { OutboundStream } from './outbound-stream.js';
import { SseChannel } from './sse-channel.js';
import type { SseStream } from './sse-event.js';
import { closedStream, replayFromStore } from './store-replay.js';
import type { RequestInfo, SessionManager, TransportSettings } from './session-manager.js';

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
  /** Called with store failures that cannot reach a client. Defaults to `console.error`. */
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
  private readonly onError: (error: unknown) => void;
  private readonly live = new Map<string, OutboundStream>();
  private settings: TransportSettings = { sseRetry: DEFAULT_SSE_RETRY, maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES };

  constructor(options: NeverSessionManagerOptions = {}) {
    this.eventStore = options.eventStore;
    this.streamCacheSize = options.streamCacheSize ?? 64;
    this.streamCacheBytes = options.streamCacheBytes ?? 4 * 1024 * 1024;
    this.onError = options.onError ?? ((error) => console.error('[mcp-express]', error));
  }

  attach(_server: McpServer, settings: TransportSettings): void {
    this.settings = settings;
  }

  /**
   * @internal A persisted stream for one stateless request: primed (for 2025-11-25+), stored event by event, resumable with
   * `Last-Event-ID` until its store forgets it.
   */
  openPersistedStream(primes: boolean, principal?: string): { stream: OutboundStream; channel: SseChannel } | undefined {
    if (!this.eventStore) return undefined;
    const streamId = persistedStreamId(principal);
    const stream = new OutboundStream({
      index: 0,
      localKey: streamId,
      streamId,
      cacheLimit: this.streamCacheSize,
      cacheByteLimit: this.streamCacheBytes,
      maxBufferedBytes: this.settings.maxBufferedBytes,
      sseRetry: this.settings.sseRetry,
      eventStore: this.eventStore,
      onStoreError: this.onError,
    });
    this.live.set(streamId, stream);
    const channel = stream.connect(undefined);
    // Clients older than 2025-11-25 break on a priming event's empty data; their first id comes with the first message.
    if (primes) stream.prime(this.settings.sseRetry);
    return { stream, channel };
  }

  /** @internal The request of a persisted stream finished. */
  completePersistedStream(stream: OutboundStream): void {
    stream.complete(Date.now());
    this.live.delete(stream.streamId);
  }

  /**
   * Replays a persisted stream after `lastEventId`, following it live when it runs on this instance. Only the
   * principal that made the request may resume it, and only stateless streams (never a session's, should the
   * store be shared with a LocalSessionManager).
   */
  resumeStateless(lastEventId: string, principal?: string): SseStream {
    const store = this.eventStore;
    const streamId = store?.streamIdOf(lastEventId);
    if (!store || !streamId || !PERSISTED_STREAM_ID.test(streamId) || !streamId.startsWith(`stateless:${principalTag(principal)}:`)) {
      return closedStream();
    }
    const local = this.live.get(streamId);
    if (local) return local.resumeFromStore(lastEventId);
    return replayFromStore(store, lastEventId, this.onError);
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
  async shutdown(): Promise<void> {
    for (const stream of this.live.values()) stream.disconnect();
    this.live.clear();
  }
}
