import { EVENT_STORE_DEFAULTS } from '../defaults.js';
import type { SseEvent } from './sse-event.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { CountRanking } from './count-ranking.js';
import { IMMEDIATE_WRITES, type ImmediateWrites } from './immediate-writes.js';
import { RecencyList, type RecencyNode } from './recency-list.js';
import { firstAfter, formatEventId, parseEventId } from './sequenced-event-id.js';

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Defaults to `1000`. */
  maxEventsPerStream?: number;
  /** Milliseconds a stream is kept after its last event. Defaults to `300000` (5 minutes). */
  ttlMs?: number;
  /** Streams kept at most; beyond it the owner holding the most streams loses its least recently written one. Defaults to `10000`. */
  maxStreams?: number;
  /**
   * Bytes of JSON text kept over all streams (each event also counts a fixed 64 bytes of overhead). Beyond it the
   * owner holding the most bytes loses its least recently written stream first, so one client's volume never
   * evicts another's events while it holds more than they do. Defaults to `67108864` (64 MiB).
   */
  maxBytes?: number;
  /**
   * Who a stream belongs to, for fair eviction. Defaults to the session id of session streams
   * (`<sessionId>/…`), the principal tag of persisted stateless streams (`stateless:<tag>:…`), and the stream id
   * itself otherwise.
   */
  ownerOf?: (streamId: string) => string;
}

/** One kept event: its store seq, what it carried (on the record itself, not a copy of the event) and its size for `maxBytes`. */
class SeqEvent {
  constructor(
    readonly seq: number,
    readonly message: SseEvent['message'],
    readonly retry: number | undefined,
    readonly size: number,
  ) {}
}

/**
 * One stream's kept events. A class with every field set in its constructor (an object literal given fields later
 * keeps them in a second backing store), and its own node in the store's recency list (the owner's list has a node
 * of its own): two objects fewer per kept stream.
 */
class StreamLog implements RecencyNode<StreamLog> {
  older: RecencyNode<StreamLog> | undefined = undefined;
  newer: RecencyNode<StreamLog> | undefined = undefined;
  /** Seq of the last event dropped for `maxEventsPerStream` or bytes, or 0 if none was dropped. */
  droppedUpTo = 0;
  bytes = 0;
  complete = false;
  /** Its place among its owner's streams, least recently written first (set when it joins them). */
  ownerRecency: RecencyNode<StreamLog> | undefined = undefined;

  constructor(
    readonly streamId: string,
    readonly owner: Owner,
    /** Store seq of the first event of this incarnation of the stream id; earlier seqs on it are from an evicted one. */
    readonly startSeq: number,
    /** Kept events, in increasing seq order. It starts with its first event: an empty array grows to 16 slots on its first push, and most streams keep one or two events. */
    readonly events: SeqEvent[],
    public lastWrite: number,
  ) {}

  /** As a node of the store's recency list, the log is its own value. */
  get value(): StreamLog {
    return this;
  }
}

/** One owner's streams, least recently written first, and the bytes they hold. */
interface Owner {
  key: string;
  streams: RecencyList<StreamLog>;
  bytes: number;
}

/** What one stored event costs beyond its JSON text (ids, objects, array slots), so that empty events count too. */
const EVENT_OVERHEAD_BYTES = 64;

/**
 * Events in this process's memory, bounded by count, bytes and age. Ids are `<streamId>#<seq>`, so a store can tell
 * which stream an id belongs to and replays never cross streams. `seq` comes from one counter for the whole store,
 * so an id never repeats for the life of the store object, even when a stream is evicted (TTL, `maxStreams`,
 * `maxBytes`) and its stream id is written again: a resume from an id of the evicted incarnation then replays the
 * new one. Eviction is fair between owners (sessions, stateless principals): the largest owner gives way first.
 * Shared by several session managers in one process it behaves like a shared store; across processes implement
 * `EventStore` over a shared database.
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamLog>();
  /** Every stream, least recently written first (what the TTL sweep and eviction walk). */
  private readonly recency = new RecencyList<StreamLog>();
  private readonly owners = new Map<string, Owner>();
  /** Owners by how many streams they hold: the one eviction by count takes from, without a scan. */
  private readonly ownersByStreams = new CountRanking<Owner>();
  private readonly maxEventsPerStream: number;
  private readonly ttlMs: number;
  private readonly maxStreams: number;
  private readonly maxBytes: number;
  private readonly ownerOf: (streamId: string) => string;
  private totalBytes = 0;
  private lastSweep = 0;
  /** Last seq handed out, store-wide. */
  private seq = 0;
  /** Each `storeEvent` does its work before it returns: calls made without waiting are stored in call order. */
  readonly keepsWriteOrder: boolean = true;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerStream = options.maxEventsPerStream ?? EVENT_STORE_DEFAULTS.maxEventsPerStream;
    this.ttlMs = options.ttlMs ?? EVENT_STORE_DEFAULTS.ttlMs;
    this.maxStreams = options.maxStreams ?? EVENT_STORE_DEFAULTS.maxStreams;
    this.maxBytes = options.maxBytes ?? EVENT_STORE_DEFAULTS.maxBytes;
    this.ownerOf = options.ownerOf ?? defaultOwnerOf;
  }

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    return this.storeEventNow(streamId, event);
  }

  /**
   * The session streams of this process store through these (see `ImmediateWrites`), unless a subclass overrides
   * `storeEvent` or `completeStream`: then its own versions are called.
   * @internal
   */
  get [IMMEDIATE_WRITES](): ImmediateWrites | undefined {
    const own = InMemoryEventStore.prototype;
    return this.storeEvent === own.storeEvent && this.completeStream === own.completeStream ? this : undefined;
  }

  /** @internal `storeEvent`, done before it returns. */
  storeEventNow(streamId: string, event: SseEvent): string {
    if (streamId.length === 0) throw new TypeError('storeEvent needs a non-empty streamId');
    const now = Date.now();
    this.sweep(now);
    const seq = ++this.seq;
    const size = sizeOf(event);
    const record = new SeqEvent(seq, event.message, event.retry, size);
    let log = this.streams.get(streamId);
    if (!log) {
      const owner = this.ownerFor(streamId);
      log = new StreamLog(streamId, owner, seq, [record], now);
      this.recency.append(log);
      log.ownerRecency = owner.streams.add(log);
      this.ownersByStreams.set(owner, owner.streams.size);
      this.streams.set(streamId, log);
    } else {
      this.recency.touch(log);
      log.owner.streams.touch(log.ownerRecency!);
      log.events.push(record);
    }
    this.grow(log, size);
    log.lastWrite = now;
    if (log.events.length > this.maxEventsPerStream) this.dropOldestEvent(log);
    this.enforceLimits(log);
    return formatEventId(streamId, seq);
  }

  async *replayEventsAfter(lastEventId: string): AsyncGenerator<StoredEvent> {
    const position = parseEventId(lastEventId);
    if (!position) return;
    const log = this.live(position.streamId);
    // Unknown stream, an id newer than anything stored, or events after the id were dropped: nothing, never a gap.
    if (!log || position.seq > this.seq || position.seq < log.droppedUpTo) return;
    // An id older than this incarnation (its stream id was evicted and written again) saw none of these events:
    // the whole log is newer. Otherwise, the events after the id.
    const start = position.seq < log.startSeq ? 0 : firstAfter(log.events, position.seq);
    // Copy first: events stored while the consumer is slow must not shift what this replay yields.
    const events = log.events.slice(start);
    for (const { seq, message, retry } of events) yield { id: formatEventId(position.streamId, seq), event: { message, retry } };
  }

  streamIdOf(eventId: string): string | undefined {
    return parseEventId(eventId)?.streamId;
  }

  /** `<streamId>#0`: seq 0 comes before every seq this store hands out. */
  startEventId(streamId: string): string {
    return formatEventId(streamId, 0);
  }

  async completeStream(streamId: string): Promise<void> {
    this.completeStreamNow(streamId);
  }

  /** @internal `completeStream`, done before it returns. */
  completeStreamNow(streamId: string): void {
    const log = this.streams.get(streamId);
    if (log) log.complete = true;
  }

  /** Whether `completeStream` marked the stream (for tests and metrics; the middleware does not need it). */
  async isStreamComplete(streamId: string): Promise<boolean> {
    return this.live(streamId)?.complete ?? false;
  }

  /** Streams held now (for tests and metrics). */
  get streamCount(): number {
    return this.streams.size;
  }

  /** Bytes held now, as `maxBytes` counts them (for tests and metrics). */
  get byteCount(): number {
    return this.totalBytes;
  }

  private ownerFor(streamId: string): Owner {
    const key = this.ownerOf(streamId);
    let owner = this.owners.get(key);
    if (!owner) {
      owner = { key, streams: new RecencyList(), bytes: 0 };
      this.owners.set(key, owner);
    }
    return owner;
  }

  private grow(log: StreamLog, delta: number): void {
    log.bytes += delta;
    log.owner.bytes += delta;
    this.totalBytes += delta;
  }

  private dropOldestEvent(log: StreamLog): void {
    const dropped = log.events.shift()!;
    log.droppedUpTo = dropped.seq;
    this.grow(log, -dropped.size);
  }

  private dropStream(log: StreamLog): void {
    this.streams.delete(log.streamId);
    this.recency.remove(log);
    log.owner.streams.remove(log.ownerRecency!);
    this.ownersByStreams.set(log.owner, log.owner.streams.size);
    this.grow(log, -log.bytes);
    if (log.owner.streams.size === 0) this.owners.delete(log.owner.key);
  }

  /**
   * Back within `maxStreams` and `maxBytes`: the owner with the most streams (or bytes) loses its least recently
   * written stream. The stream just written is never dropped whole; when it is the largest owner's only stream it
   * loses its oldest events instead (its newest always stays).
   */
  private enforceLimits(current: StreamLog): void {
    while (this.streams.size > this.maxStreams || this.totalBytes > this.maxBytes) {
      if (this.streams.size > this.maxStreams) {
        const largest = this.ownersByStreams.largest()!;
        // Every owner holds one stream: the least recently written one overall goes.
        const victim = largest.count > 1 ? largest.item.streams.oldest(current) : this.recency.oldest(current);
        if (!victim) return;
        this.dropStream(victim);
        continue;
      }
      const victim = this.largestOwnerByBytes().streams.oldest(current);
      if (victim) {
        this.dropStream(victim);
      } else if (current.events.length > 1) {
        this.dropOldestEvent(current);
      } else {
        return;
      }
    }
  }

  /** A scan of the owners: only when the store is over `maxBytes`, which takes a large volume of events. */
  private largestOwnerByBytes(): Owner {
    let largest: Owner | undefined;
    for (const owner of this.owners.values()) if (!largest || owner.bytes > largest.bytes) largest = owner;
    return largest!;
  }

  private live(streamId: string): StreamLog | undefined {
    const log = this.streams.get(streamId);
    if (log && Date.now() - log.lastWrite > this.ttlMs) {
      this.dropStream(log);
      return undefined;
    }
    return log;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < Math.min(this.ttlMs, 10_000)) return;
    this.lastSweep = now;
    // Least recently written first: the first stream still fresh ends the sweep.
    for (const log of this.recency.values()) {
      if (now - log.lastWrite <= this.ttlMs) break;
      this.dropStream(log);
    }
  }
}

/** The session of `<sessionId>/…`, the principal of `stateless:<tag>:…`, or the stream id itself. */
function defaultOwnerOf(streamId: string): string {
  const slash = streamId.indexOf('/');
  if (slash > 0) return streamId.slice(0, slash);
  if (streamId.startsWith('stateless:')) {
    const colon = streamId.indexOf(':', 'stateless:'.length);
    if (colon > 0) return streamId.slice(0, colon);
  }
  return streamId;
}

/** What an event costs to keep: its JSON text (made by the sender, or measured here) plus a fixed overhead. */
function sizeOf(event: SseEvent): number {
  let text = event.data;
  if (text === undefined && event.message !== undefined) {
    try {
      text = JSON.stringify(event.message);
    } catch {
      text = undefined;
    }
  }
  return EVENT_OVERHEAD_BYTES + (text?.length ?? 0);
}
