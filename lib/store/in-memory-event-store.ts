import type { SseEvent } from '../session/sse-event.js';
import type { EventStore, StoredEvent } from './event-store.js';

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Defaults to `1000`. */
  maxEventsPerStream?: number;
  /** Milliseconds a stream is kept after its last event. Defaults to `300000` (5 minutes). */
  ttlMs?: number;
  /** Streams kept at most; the least recently written is dropped beyond it. Defaults to `10000`. */
  maxStreams?: number;
}

interface StreamLog {
  /** Seq of events[0]. */
  firstSeq: number;
  events: SseEvent[];
  lastWrite: number;
  complete: boolean;
}

const SEPARATOR = '#';

/**
 * Events in this process's memory, bounded by count and age. Ids are `<streamId>#<seq>`, so a store can tell
 * which stream an id belongs to and replays never cross streams. Shared by several session managers in one
 * process it behaves like a shared store; across processes implement `EventStore` over a shared database.
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamLog>();
  private readonly maxEventsPerStream: number;
  private readonly ttlMs: number;
  private readonly maxStreams: number;
  private lastSweep = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerStream = options.maxEventsPerStream ?? 1000;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxStreams = options.maxStreams ?? 10_000;
  }

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    if (streamId.length === 0) throw new TypeError('storeEvent needs a non-empty streamId');
    const now = Date.now();
    this.sweep(now);
    let log = this.streams.get(streamId);
    if (!log) {
      log = { firstSeq: 1, events: [], lastWrite: now, complete: false };
      this.streams.set(streamId, log);
      if (this.streams.size > this.maxStreams) this.streams.delete(this.streams.keys().next().value!);
    } else {
      // Keep the map in least-recently-written order for the maxStreams bound.
      this.streams.delete(streamId);
      this.streams.set(streamId, log);
    }
    log.events.push({ message: event.message, retry: event.retry });
    log.lastWrite = now;
    if (log.events.length > this.maxEventsPerStream) {
      log.events.shift();
      log.firstSeq++;
    }
    return `${streamId}${SEPARATOR}${log.firstSeq + log.events.length - 1}`;
  }

  async *replayEventsAfter(lastEventId: string): AsyncGenerator<StoredEvent> {
    const position = parse(lastEventId);
    if (!position) return;
    const log = this.live(position.streamId);
    if (!log || position.seq < log.firstSeq - 1 || position.seq >= log.firstSeq + log.events.length) return;
    // Copy first: events stored while the consumer is slow must not shift what this replay yields.
    const start = position.seq + 1 - log.firstSeq;
    const events = log.events.slice(start);
    let seq = position.seq;
    for (const event of events) {
      seq++;
      yield { id: `${position.streamId}${SEPARATOR}${seq}`, event };
    }
  }

  streamIdOf(eventId: string): string | undefined {
    return parse(eventId)?.streamId;
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

function parse(eventId: string): { streamId: string; seq: number } | undefined {
  const at = eventId.lastIndexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const seqText = eventId.slice(at + 1);
  if (!/^\d{1,15}$/.test(seqText)) return undefined;
  return { streamId: eventId.slice(0, at), seq: Number(seqText) };
}
