import type { SseEvent } from '../session/sse-event.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { firstAfter, formatEventId, parseEventId } from './sequenced-event-id.js';

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Defaults to `1000`. */
  maxEventsPerStream?: number;
  /** Milliseconds a stream is kept after its last event. Defaults to `300000` (5 minutes). */
  ttlMs?: number;
  /** Streams kept at most; the least recently written is dropped beyond it. Defaults to `10000`. */
  maxStreams?: number;
}

interface SeqEvent {
  seq: number;
  event: SseEvent;
}

interface StreamLog {
  /** Store seq of the first event of this incarnation of the stream id; earlier seqs on it are from an evicted one. */
  startSeq: number;
  /** Seq of the last event dropped for `maxEventsPerStream`, or 0 if none was dropped. */
  droppedUpTo: number;
  /** Kept events, in increasing seq order. */
  events: SeqEvent[];
  lastWrite: number;
  complete: boolean;
}


/**
 * Events in this process's memory, bounded by count and age. Ids are `<streamId>#<seq>`, so a store can tell
 * which stream an id belongs to and replays never cross streams. `seq` comes from one counter for the whole store,
 * so an id never repeats for the life of the store object, even when a stream is evicted (TTL, `maxStreams`) and
 * its stream id is written again: a resume from an id of the evicted incarnation then replays the new one.
 * Shared by several session managers in one process it behaves like a shared store; across processes implement
 * `EventStore` over a shared database.
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamLog>();
  private readonly maxEventsPerStream: number;
  private readonly ttlMs: number;
  private readonly maxStreams: number;
  private lastSweep = 0;
  /** Last seq handed out, store-wide. */
  private seq = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerStream = options.maxEventsPerStream ?? 1000;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxStreams = options.maxStreams ?? 10_000;
  }

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    if (streamId.length === 0) throw new TypeError('storeEvent needs a non-empty streamId');
    const now = Date.now();
    this.sweep(now);
    const seq = ++this.seq;
    let log = this.streams.get(streamId);
    if (!log) {
      log = { startSeq: seq, droppedUpTo: 0, events: [], lastWrite: now, complete: false };
      this.streams.set(streamId, log);
      if (this.streams.size > this.maxStreams) this.streams.delete(this.streams.keys().next().value!);
    } else {
      // Keep the map in least-recently-written order for the maxStreams bound.
      this.streams.delete(streamId);
      this.streams.set(streamId, log);
    }
    log.events.push({ seq, event: { message: event.message, retry: event.retry } });
    log.lastWrite = now;
    if (log.events.length > this.maxEventsPerStream) log.droppedUpTo = log.events.shift()!.seq;
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
    for (const { seq, event } of events) yield { id: formatEventId(position.streamId, seq), event };
  }

  streamIdOf(eventId: string): string | undefined {
    return parseEventId(eventId)?.streamId;
  }

  async completeStream(streamId: string): Promise<void> {
    const log = this.streams.get(streamId);
    if (log) log.complete = true;
  }

  async isStreamComplete(streamId: string): Promise<boolean> {
    return this.live(streamId)?.complete ?? false;
  }

  /** Streams held now (for tests and metrics). */
  get streamCount(): number {
    return this.streams.size;
  }

  private live(streamId: string): StreamLog | undefined {
    const log = this.streams.get(streamId);
    if (log && Date.now() - log.lastWrite > this.ttlMs) {
      this.streams.delete(streamId);
      return undefined;
    }
    return log;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < Math.min(this.ttlMs, 10_000)) return;
    this.lastSweep = now;
    for (const [streamId, log] of this.streams) if (now - log.lastWrite > this.ttlMs) this.streams.delete(streamId);
  }
}
