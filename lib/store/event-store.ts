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
}
