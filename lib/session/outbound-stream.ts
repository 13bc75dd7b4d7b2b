import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type RequestId } from '../protocol/jsonrpc.js';
import type { EventStore } from '../store/event-store.js';
import { immediateWritesOf, type ImmediateWrites } from '../store/immediate-writes.js';
import type { RecencyNode } from '../store/recency-list.js';
import { formatLocalEventId } from './local-event-id.js';
import { SseChannel, type SseChannelOwner } from './sse-channel.js';
import { isSafeSseField, type SseEvent } from '../store/sse-event.js';

/**
 * What every stream of one owner shares (a session's streams, or a NeverSessionManager's persisted ones): made
 * once by the owner, not per stream, since a session makes a stream per request.
 */
export interface OutboundStreamSettings {
  /** How many recent events to keep for a resume without an EventStore. */
  cacheLimit: number;
  /** Bytes of JSON text those recent events may take; the oldest go first past it. */
  cacheByteLimit: number;
  /** Bytes that may wait for a slow reader on the live connection (see `SseChannel`). */
  maxBufferedBytes: number;
  /** `retry:` (ms) sent when a slow reader's connection is ended so that it resumes. */
  sseRetry: number;
  eventStore: EventStore | undefined;
  onStoreError: (error: unknown) => void;
  /** Told of every change in the bytes the recent-events log holds (the session's and process's budgets). */
  onCacheBytes?: (delta: number) => void;
  /**
   * Called when a request stream's reader fell so far behind that the stream cannot be resumed from what is kept:
   * the stream has already ended the connection with an error response; the owner cancels `stream.requestId`.
   */
  onAbandoned?: (stream: OutboundStream) => void;
}

/** An event in a stream's log: its position in the stream, for local resume. */
interface LoggedEvent extends SseEvent {
  seq?: number;
}

/**
 * One server-side SSE stream of a session: a log of recent events (for resume) and at most one live
 * connection. Without an EventStore, ids are `<localKey>/<seq>`; with one, the store mints them. Each message is
 * serialised once, when it is sent; replays reuse the text.
 */
export class OutboundStream implements RecencyNode<OutboundStream>, SseChannelOwner {
  readonly index: number;
  readonly localKey: string;
  readonly streamId: string;
  /** The live connection, if a client is connected. */
  listener: SseChannel | undefined;
  /** Called when the live connection's client goes away (not when the server ends it). */
  onListenerDetached: (() => void) | undefined;
  completed = false;
  completedAt = 0;
  /** The completion's queued step has run: every event was recorded and the live connection ended. */
  private ended = false;
  /** The request this stream answers (unset for the standalone GET stream). */
  requestId: RequestId | undefined;
  /** Its neighbours among the session's retained streams (`RetainedStreams`): the stream is its own list node. */
  older: RecencyNode<OutboundStream> | undefined = undefined;
  newer: RecencyNode<OutboundStream> | undefined = undefined;
  /** The session ended: nothing may attach any more (a resume queued behind store writes ends at once). */
  private closed = false;
  private seq = 0;
  /** A store write of this stream failed: later events are not stored (each would wait for the store's timeout). */
  private storeFailed = false;
  private cache: LoggedEvent[] = [];
  /** Bytes of JSON text in `cache`. */
  private cacheBytes = 0;
  /** Shared with the owner's other streams (read from there, not copied: a stream is made per request). */
  private readonly settings: OutboundStreamSettings;
  private readonly eventStore: EventStore | undefined;
  /** The store's writes that are done when they return (`InMemoryEventStore`), if it has them. */
  private readonly immediateWrites: ImmediateWrites | undefined;
  /** Keeps store writes (and what follows them) in order. */
  private tail: Promise<void> | undefined;
  /**
   * Resumes reading the EventStore, queued or running. While there is one, writes are not sent ahead (pipelined):
   * an event written before the replay reads the store would reach the new connection twice (from the replay,
   * then from its own turn in the queue).
   */
  private storeReplays = 0;
  /** Seq of the last event handed to a live connection (standalone stream: where a new GET starts). */
  private deliveredSeq = 0;
  /** Id of the newest event: where a client resumes after a SEP-1699 close. */
  private lastId: string | undefined;
  /**
   * Events held back from the live connection while delivery is held (`holdDelivery`): they are stored and
   * recorded, and delivered in order once the hold ends. Undefined when nothing is held.
   */
  private held: LoggedEvent[] | undefined;
  /** Bytes of JSON text in `held`. */
  private heldBytes = 0;
  /** While delivery is held: takes the stream's lease now and then releases delivery. */
  private leaseNow: (() => Promise<void>) | undefined;
  /** Senders waiting for room while too much is held (see `waitForRoom`). */
  private heldRoomWaiters: Array<() => void> | undefined;

  /**
   * @param index Session-scoped number of the stream; 0 is the standalone (GET) stream.
   * @param localKey `<incarnation>.<index>`: the stream's name in local event ids (`<localKey>/<seq>`). The
   * incarnation is random per session object, so a session restored elsewhere never reuses the ids of an earlier copy.
   * @param streamId `<sessionId>/<localKey>`: the id under which an EventStore keeps the stream.
   */
  constructor(index: number, localKey: string, streamId: string, settings: OutboundStreamSettings) {
    this.index = index;
    this.localKey = localKey;
    this.streamId = streamId;
    this.settings = settings;
    this.eventStore = settings.eventStore;
    this.immediateWrites = immediateWritesOf(settings.eventStore);
  }

  /** The stream itself, as the value of its node among the session's retained streams. */
  get value(): OutboundStream {
    return this;
  }

  /** Bytes of JSON text this stream keeps for resumes. */
  get retainedBytes(): number {
    return this.cacheBytes;
  }

  /** Forgets the recent events (the stream is evicted): their bytes are given back to the budgets. */
  releaseCache(): void {
    if (this.cacheBytes !== 0) this.settings.onCacheBytes?.(-this.cacheBytes);
    // Emptied in place: a new array per evicted stream (one per request once a session holds maxRetainedStreams)
    // was an allocation site V8 pretenured (bench/run.js --gc-profile).
    this.cache.length = 0;
    this.cacheBytes = 0;
  }

  /**
   * Sends a message: stored (or cached) first, then written to the live connection, if any. False when it cannot
   * be serialised and was dropped (see `serialise`).
   */
  send(message: JsonRpcMessage): boolean {
    return this.emit({ message });
  }

  /** A priming event: an id to resume from and the reconnection delay, with no message. */
  prime(retry: number): void {
    const store = this.eventStore;
    const startId = store?.startEventId && this.seq === 0 ? store.startEventId(this.streamId) : undefined;
    if (startId !== undefined && isSafeSseField(startId)) {
      // An id before every event of the stream: resuming from it replays the whole stream, so nothing is written.
      this.lastId = startId;
      this.deliver({ id: startId, retry });
    } else if (store) {
      this.emit({ retry });
    } else {
      this.lastId = formatLocalEventId(this.localKey, this.seq);
      this.deliver({ id: this.lastId, retry });
    }
  }

  /** Resolves once every store write queued so far is done (at once when none is pending); never rejects. */
  stored(): Promise<void> {
    return this.tail ?? Promise.resolve();
  }

  /** True while store writes (or steps queued behind them) are pending: `stored()` would wait. */
  get storing(): boolean {
    return this.tail !== undefined;
  }

  /**
   * Holds back what the live connection would receive (the priming event included) until `releaseDelivery`, or
   * until the stream completes with every event recorded: events are still stored and kept for resumes meanwhile.
   * The stream's lease is delayed (see `LeaseKeeper`) and the client must not hold an id before it is taken.
   * `leaseNow` takes the lease at once (and then releases delivery): a close of the connection asks for it, since
   * the client resumes from the ids it was given, and so does a stream that holds half of `maxBufferedBytes`
   * (its senders then wait, as for a slow reader). Without `leaseNow` the hold lasts until the stored completion.
   */
  holdDelivery(leaseNow?: () => Promise<void>): void {
    this.held ??= [];
    this.leaseNow = leaseNow;
  }

  /** Ends a hold: what was held back reaches the live connection, in order. */
  releaseDelivery(): void {
    if (this.held === undefined) return;
    for (const event of this.endHold()!) this.deliver(event);
  }

  /**
   * Backpressure for the request's own messages: a promise that resolves once the live connection (or, while
   * delivery is held, the hold) has room again, or undefined when there is room now.
   */
  waitForRoom(): Promise<void> | undefined {
    if (!this.held) return this.listener?.waitForRoom();
    if (this.heldBytes <= this.settings.maxBufferedBytes / 2) return undefined;
    return new Promise((resolve) => {
      (this.heldRoomWaiters ??= []).push(resolve);
    });
  }

  /**
   * Ends a hold, if any: its senders may go on (they resume after the caller's synchronous delivery); returns what
   * was held back.
   */
  private endHold(): LoggedEvent[] | undefined {
    const held = this.held;
    const waiters = this.heldRoomWaiters;
    this.held = undefined;
    this.heldBytes = 0;
    this.leaseNow = undefined;
    this.heldRoomWaiters = undefined;
    if (waiters) for (const resolve of waiters) resolve();
    return held;
  }

  /** The request finished: after what is queued, the live connection ends; the log stays for resumes. */
  complete(now: number): void {
    if (this.completed) return;
    this.completed = true;
    this.completedAt = now;
    this.after(() => {
      this.ended = true;
      // Every event is recorded (stored, with a store) by now: nothing need be held back any more.
      this.releaseDelivery();
      this.listener?.end();
      this.listener = undefined;
      // A finished stream is only replayed: keep each event's JSON text, not the message objects too. (New
      // objects: a connection may still hold the old ones in its queue.)
      this.cache = this.cache.map((event) => (event.message === undefined ? event : { id: event.id, seq: event.seq, retry: event.retry, data: event.data }));
      if (this.immediateWrites) this.immediateWrites.completeStreamNow(this.streamId);
      else if (this.eventStore?.completeStream) this.eventStore.completeStream(this.streamId).catch(this.settings.onStoreError);
    });
  }

  /**
   * SEP-1699: sends a retry hint, then ends the connection while the stream goes on. The client reconnects
   * with `Last-Event-ID` and resumes.
   */
  closeConnection(retry: number, bare = false): void {
    // The client gets what was held back first and resumes from it, so the lease must be held by then. It is asked
    // for now, not when the close's turn comes: a request that completes meanwhile still hands the client ids
    // before its response is stored.
    const leaseNow = this.leaseNow;
    if (leaseNow) {
      const taking = leaseNow();
      this.after(() => taking);
    }
    this.after(() => {
      const listener = this.listener;
      // Still held (the stream completes without a lease, and its completion delivers): no id may go out before
      // then, so the connection stays and gets the stream when it is delivered.
      if (!listener || this.held) return;
      // `bare`: a retry hint without data, which clients of every version ignore as an event (SEP-1699's hint with
      // the last id is for 2025-11-25 clients); the client resumes from the last id it received.
      listener.push(this.lastId === undefined || bare ? { retry } : { id: this.lastId, retry });
      listener.end();
      this.listener = undefined;
    });
  }

  /** Opens a live connection that starts with whatever no connection has received yet. */
  connect(primingRetry: number | undefined): SseChannel {
    const channel = this.newChannel();
    this.after(() => {
      if (primingRetry !== undefined && !this.eventStore) channel.push({ id: formatLocalEventId(this.localKey, this.deliveredSeq), retry: primingRetry });
      this.replayInto(channel, this.deliveredSeq);
      this.adopt(channel);
    });
    // With a store, the priming event is stored like any other so that its id resumes on any instance.
    if (primingRetry !== undefined && this.eventStore) this.emit({ retry: primingRetry });
    return channel;
  }

  /** True when this stream's log can serve a resume after `seq` (the events after it are still cached). */
  canResumeAfter(seq: number): boolean {
    const oldest = this.cache.length ? this.cache[0].seq! : this.seq + 1;
    return seq >= oldest - 1 && seq <= this.seq;
  }

  /** Replays the cached events after `seq`, then follows the stream live (or ends if it is complete). */
  resumeAfter(seq: number): SseChannel {
    const channel = this.newChannel();
    this.after(() => {
      this.replayInto(channel, seq);
      this.adopt(channel);
    });
    return channel;
  }

  /**
   * Replays from the EventStore the events after `eventId`, then follows the stream live. Events sent during
   * the replay wait behind it (every step of a stored stream is serialised), so none is lost or doubled.
   */
  resumeFromStore(eventId: string): SseChannel {
    const store = this.eventStore;
    const channel = this.newChannel();
    if (!store) {
      channel.end();
      return channel;
    }
    this.storeReplays++;
    this.after(async () => {
      try {
        for await (const stored of store.replayEventsAfter(eventId)) {
          channel.push({ id: stored.id, message: stored.event.message, retry: stored.event.retry });
        }
      } catch (error) {
        this.settings.onStoreError(error);
        channel.end();
        return;
      } finally {
        this.storeReplays--;
      }
      this.adopt(channel);
    });
    return channel;
  }

  /** Ends the live connection for good without completing the stream (the session is closing). */
  disconnect(): void {
    this.closed = true;
    this.endHold(); // what was held back reaches nobody now
    this.listener?.end();
    this.listener = undefined;
  }

  private emit(partial: { message?: JsonRpcMessage; retry?: number }): boolean {
    const event: LoggedEvent = partial;
    if (event.message !== undefined) {
      const data = serialise(event.message, this.settings.onStoreError);
      if (data === undefined) return false;
      event.data = data.text;
      event.message = data.message;
    }
    event.seq = ++this.seq;
    if (!this.eventStore) {
      event.id = formatLocalEventId(this.localKey, event.seq);
      this.record(event);
      return true;
    }
    // A store whose writes are done when they return, with nothing queued before this one: stored and delivered now.
    if (this.immediateWrites && !this.tail && !this.storeFailed) {
      try {
        this.acceptStoredId(event, this.immediateWrites.storeEventNow(this.streamId, { message: event.message, retry: event.retry, data: event.data }));
      } catch (error) {
        this.storeFailed = true;
        this.settings.onStoreError(error);
      }
      this.record(event);
      return true;
    }
    const store = this.eventStore;
    // A store that keeps the order of writes made without waiting gets this one now (pipelined with the stream's
    // other writes); any other store gets it once the previous write is done. Either way the events are recorded
    // and delivered in order, each once its write is acknowledged.
    const early = store.keepsWriteOrder && !this.storeFailed && this.storeReplays === 0 ? this.store(store, event) : undefined;
    early?.catch(() => undefined); // handled below, in order; never an unhandled rejection meanwhile
    this.after(async () => {
      // The store failed on this stream: the rest goes out live, without ids (no resume), rather than each event
      // waiting for the store's timeout in turn.
      if (this.storeFailed) {
        this.record(event);
        return;
      }
      try {
        this.acceptStoredId(event, await (early ?? this.store(store, event)));
      } catch (error) {
        this.storeFailed = true;
        this.settings.onStoreError(error);
      }
      this.record(event);
    });
    return true;
  }

  /** Gives the event the id its store minted, unless the id cannot stand on an SSE line (then it goes out without one). */
  private acceptStoredId(event: LoggedEvent, id: string): void {
    // CR, LF or NUL in an id would let the store inject fields.
    if (isSafeSseField(id)) event.id = id;
    else this.settings.onStoreError(new TypeError(`EventStore.storeEvent returned an event id that cannot be written to an SSE stream (${JSON.stringify(String(id).slice(0, 64))}); ids must be strings without CR, LF or NUL, at most 1024 characters`));
  }

  /** Stores an event; `data` (the JSON text already made) lets a store measure or write it without serialising again. */
  private store(store: EventStore, event: LoggedEvent): Promise<string> {
    try {
      return store.storeEvent(this.streamId, { message: event.message, retry: event.retry, data: event.data });
    } catch (error) {
      return Promise.reject(error); // a store that throws at once fails like one that rejects
    }
  }

  private record(event: LoggedEvent): void {
    if (event.id !== undefined) this.lastId = event.id;
    const size = event.data?.length ?? 0;
    this.cache.push(event);
    this.cacheBytes += size;
    let released = 0;
    while (this.cache.length > this.settings.cacheLimit || (this.cacheBytes > this.settings.cacheByteLimit && this.cache.length > 0)) {
      const dropped = this.cache.shift()!.data?.length ?? 0;
      this.cacheBytes -= dropped;
      released += dropped;
    }
    if (size !== released) this.settings.onCacheBytes?.(size - released);
    this.deliver(event);
  }

  private deliver(event: LoggedEvent): void {
    if (this.held) {
      this.held.push(event);
      this.heldBytes += event.data?.length ?? 0;
      // Not a quick request: its lease is taken now, before what is held outgrows the connection's budget.
      if (this.heldBytes > this.settings.maxBufferedBytes / 2) void this.leaseNow?.();
      return;
    }
    if (this.listener?.push(event)) {
      if (event.seq !== undefined) this.deliveredSeq = event.seq;
    }
  }

  private replayInto(channel: SseChannel, afterSeq: number): void {
    for (const event of this.cache) {
      if (event.seq! > afterSeq) {
        channel.push(event);
        this.deliveredSeq = Math.max(this.deliveredSeq, event.seq!);
      }
    }
  }

  private adopt(channel: SseChannel): void {
    // A completed stream whose last events are still queued (behind a replay) adopts the connection: they reach it,
    // and the completion's own step ends it.
    if (this.ended || this.closed || !channel.isOpen) {
      channel.end();
      return;
    }
    if (this.listener && this.listener !== channel) this.listener.end();
    this.listener = channel;
  }

  private newChannel(): SseChannel {
    const channel = new SseChannel(this.settings.maxBufferedBytes);
    channel.owner = this;
    return channel;
  }

  /** A connection's client went away: if it was the live one, the stream goes on without a connection. */
  channelDetached(channel: SseChannel): void {
    if (this.listener !== channel) return;
    this.listener = undefined;
    this.onListenerDetached?.();
  }

  /**
   * The live connection's reader fell `maxBufferedBytes` behind. With an EventStore, which keeps every event the
   * reader has not read yet, the connection ends with a retry hint and the client resumes with `Last-Event-ID`.
   * Without one (the recent-events log is too short to promise that), a request stream ends with an error response
   * and the request is cancelled (`onAbandoned`); the standalone stream's connection just ends.
   */
  channelOverflowed(channel: SseChannel): void {
    if (this.listener !== channel) return;
    // The oldest unread event is being written (or is the first the client gets, when a handler sent more than the
    // limit before the first write): it stays, so the client always has an id to resume from. What waits behind it
    // is dropped.
    const firstDropped = (channel.clearBehindHead() as LoggedEvent | undefined)?.seq;
    const resumable = this.eventStore !== undefined;
    if (firstDropped !== undefined) this.deliveredSeq = Math.min(this.deliveredSeq, firstDropped - 1);
    this.listener = undefined;
    if (resumable) {
      channel.push({ retry: this.settings.sseRetry });
    } else if (this.requestId !== undefined) {
      channel.push({
        message: errorResponse(
          this.requestId,
          ErrorCode.ServerError,
          `The client read this response too slowly: more than ${this.settings.maxBufferedBytes} bytes waited to be sent (maxBufferedBytesPerStream), and the stream cannot be resumed without an EventStore; the request was cancelled`,
        ),
      });
    }
    channel.end();
    if (!resumable && this.requestId !== undefined) this.settings.onAbandoned?.(this);
  }

  /**
   * Makes an existing connection (a waiting shadow) the live one: it gets what it has not seen (the cached events
   * after `afterSeq`, or after what the last connection received) and then the stream live.
   */
  adoptExisting(channel: SseChannel, afterSeq: number | undefined): void {
    channel.owner = this; // told when its client leaves or it overflows (channelDetached, channelOverflowed)
    this.after(() => {
      this.replayInto(channel, afterSeq ?? this.deliveredSeq);
      this.adopt(channel);
    });
  }

  /** Runs `step` after pending store writes, or now when there are none. */
  private after(step: () => void | Promise<void>): void {
    if (!this.tail) {
      const result = step();
      if (result) this.track(result);
      return;
    }
    this.track(this.tail.then(step));
  }

  private track(pending: Promise<void>): void {
    const tracked: Promise<void> = pending.catch(this.settings.onStoreError).then(() => {
      if (this.tail === tracked) this.tail = undefined;
    });
    this.tail = tracked;
  }
}

/**
 * The JSON text of a message, or undefined when it cannot be serialised (a BigInt, a cycle) and is not a
 * response: a response that cannot be serialised is replaced by a -32603 error with the same id, so the
 * request still ends; a notification or request that cannot be is dropped. Both go to `onError`.
 */
function serialise(message: JsonRpcMessage, onError: (error: unknown) => void): { text: string; message: JsonRpcMessage } | undefined {
  try {
    return { text: JSON.stringify(message), message };
  } catch (error) {
    onError(error);
    if ('method' in message || message.id === undefined || message.id === null) return undefined;
    const replacement: JsonRpcMessage = {
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32603, message: `Internal error: the result could not be serialised as JSON (${(error as Error).message})` },
    };
    return { text: JSON.stringify(replacement), message: replacement };
  }
}
