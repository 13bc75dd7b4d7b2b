import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../protocol/jsonrpc.js';
import type { AuthInfo } from '../protocol/types.js';
import type { McpServer } from '../server/mcp-server.js';
import type { MessageBus } from '../store/message-bus.js';
import type { ServerEvents } from './server-event-relay.js';
import type { SessionLifecycleEvent } from '../observability/events.js';
import type { SseChannel } from './sse-channel.js';
import type { SseStream } from '../store/sse-event.js';

/** What the HTTP layer knows about the request a message came in. */
export interface RequestInfo {
  /** From `req.auth`, set by the app's auth middleware. */
  authInfo?: AuthInfo;
  /**
   * Who is asking, as the middleware's `principalOf` says (by default `req.auth.clientId`). Sessions, persisted
   * streams and `requestState` belong to the principal that created them.
   */
  principal?: string;
  /** The Express request. */
  httpRequest?: unknown;
}

/** Transport settings a session manager needs, fixed when the middleware is built. */
export interface TransportSettings {
  /** `retry:` hint (ms) of priming events. */
  sseRetry: number;
  /** Bytes that may wait for a slow reader on one SSE connection (the middleware's `maxBufferedBytesPerStream`). */
  maxBufferedBytes: number;
  /** The middleware's `onError`: where a manager without an `onError` of its own reports. */
  onError: (error: unknown) => void;
  /** The deployment's message bus: client replies, cancellations and DELETEs reach the instance that needs them. */
  bus: MessageBus;
  /** The server's change events, from every instance (through the bus). */
  serverEvents: ServerEvents;
  /**
   * Reports a session created, restored, expired or closed (the middleware's `onEvent`); undefined when nobody
   * listens. A custom manager calls it the same way.
   */
  onSessionEvent?: (event: SessionLifecycleEvent) => void;
}

/** One stateless reply stored event by event, so that the client can resume it with `Last-Event-ID`. */
export interface PersistedReply {
  /** The reply's events (priming first), for the HTTP layer to write. */
  readonly channel: SseChannel;
  /** Stores and sends a message; a promise while the reader is behind (it settles when there is room). */
  send(message: JsonRpcMessage): Promise<void> | undefined;
  /** The request finished: the stream ends after what is queued. */
  complete(): void;
}

/**
 * Resumable stateless replies, for a session manager with an EventStore: each reply is stored, a disconnect does
 * not cancel its request, and GET with `Last-Event-ID` replays it on any instance sharing the store.
 */
export interface PersistedReplies {
  /**
   * A reply for request `requestId`; `primes` sends a priming event first (clients of 2025-11-25 and later). The id
   * ends the reply with an error response should this instance be lost while it runs.
   */
  open(primes: boolean, principal: string | undefined, requestId: RequestId): PersistedReply;
  /** The events of a reply after `lastEventId`, following it live where it runs here; empty for another principal's. */
  resume(lastEventId: string, principal: string | undefined): SseStream;
}

/**
 * Owns sessions and their streams. The HTTP layer calls it and writes whatever streams it returns; it never
 * sees HTTP. `LocalSessionManager` keeps sessions in memory (optionally restorable from a `SessionStore`);
 * a stateless manager has no sessions at all.
 */
export interface SessionManager {
  /** Whether this manager creates sessions; false makes GET/DELETE answer 405. */
  readonly stateful: boolean;
  /** Set when stateless replies are resumable (a stateless manager with an EventStore). */
  readonly persistedReplies?: PersistedReplies | undefined;
  /** Binds the manager to the server it dispatches to. Called once by `mcpMiddleware`. */
  attach(server: McpServer, settings: TransportSettings): void;
  /** Runs `initialize`: creates a session and returns its id with the stream carrying the initialize result. */
  initializeSession(request: JsonRpcRequest, info: RequestInfo): Promise<{ sessionId: string; stream: SseStream }>;
  /** True when the session exists here or could be restored (and belongs to the caller). */
  hasSession(sessionId: string, info: RequestInfo): Promise<boolean>;
  /** Ends a session: in-flight requests are cancelled, streams end, later requests get 404. */
  closeSession(sessionId: string, info: RequestInfo): Promise<void>;
  /** Dispatches a request and returns the stream of its related messages, ending with its response. */
  createStream(sessionId: string, request: JsonRpcRequest, info: RequestInfo): Promise<SseStream>;
  /** Takes a client notification or response (to a server→client request). */
  acceptMessage(sessionId: string, message: JsonRpcMessage, info: RequestInfo): Promise<void>;
  /** The session's standalone stream (GET): notifications and requests not tied to a client request. */
  createStandaloneStream(sessionId: string, info: RequestInfo): Promise<SseStream>;
  /** Replays the events after `lastEventId` of that one stream, then follows it live if it is still open. */
  resume(sessionId: string, lastEventId: string, info: RequestInfo): Promise<SseStream>;
  /** The negotiated protocol version of a session held here, if known (for header checks). */
  protocolVersionOf(sessionId: string): string | undefined;
  /**
   * Graceful drain before `shutdown()`: takes no new sessions, asks connected clients to resume elsewhere where
   * their streams can be resumed (an EventStore), lets running handlers finish for up to `timeoutMs`, then ends each
   * request still running with an error response (stored, when there is a store, for resumes on other instances).
   */
  drain?(timeoutMs: number): Promise<void>;
  /** Resolves once the manager receives what other instances publish (its bus subscriptions are active). */
  ready?(): Promise<void>;
  /** Ends every session and timer (server shutdown). */
  shutdown(): Promise<void>;
}
