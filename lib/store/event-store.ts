import type { SseEvent } from './sse-event.js';

/** An event as a store gives it back: its original id and what it carried. */
export interface StoredEvent {
  id: string;
  event: SseEvent;
}

/**
 * Durable log of SSE events, for replay after a dropped connection on any instance.
 *
 * Contract (checked by the shared contract suite, `describeEventStoreContract` from `mcp-express/testing`):
 * - `storeEvent` resolves only once the event is durable, with an id unique across every stream and session.
 * - The id can be decoded back to its stream: `replayEventsAfter(id)` yields the later events of that one
 *   stream, in order, with their original ids, and never an event of another stream.
 * - An unknown, evicted or malformed id yields nothing (an empty iterable), never another stream's events.
 */
export interface EventStore {
  storeEvent(streamId: string, event: SseEvent): Promise<string>;
  replayEventsAfter(lastEventId: string): AsyncIterable<StoredEvent>;
  /** The stream an event id belongs to, or undefined if the id is not this store's. */
  streamIdOf(eventId: string): string | undefined;
  /** Marks a stream finished: nothing more will be stored on it (stores may shorten its retention). */
  completeStream?(streamId: string): Promise<void>;
  /**
   * An id that comes before every event of `streamId`, known without I/O: `replayEventsAfter` of it yields every
   * event the stream holds (nothing when events were already dropped from its start, never a gap), and
   * `streamIdOf` of it is `streamId`. With it, a request stream's priming event (the id a client resumes from
   * before any message arrived) is sent at once and costs no write. Without it, the priming event is stored like
   * any other.
   */
  startEventId?(streamId: string): string;
  /**
   * True when `storeEvent` calls for one stream, made one after another without waiting for each other, store the
   * events in the order of the calls. The session managers then send a stream's writes at once (pipelined: several
   * events in one round trip, and one socket write of the response for them) instead of awaiting each before the
   * next. Leave it unset when unsure: each write then waits for the previous one. Defaults to `false`.
   */
  readonly keepsWriteOrder?: boolean;
}
