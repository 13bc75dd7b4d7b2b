import type { EventStore } from './event-store.js';
import type { SseEvent } from './sse-event.js';

/** Where a store keeps its immediate writes (internal: not part of the `EventStore` interface users implement). */
export const IMMEDIATE_WRITES = Symbol('mcp-express.immediateWrites');

/**
 * The writes of a store in this process's memory that are done when they return (`InMemoryEventStore`). A session
 * stream stores an event and delivers it in the same step, instead of through a promise per event and a few more
 * to keep the stream's steps in order (docs/benchmarks.md, "Stores in memory").
 */
export interface ImmediateWrites {
  /** `storeEvent`, done before it returns; throws where `storeEvent` rejects. */
  storeEventNow(streamId: string, event: SseEvent): string;
  /** `completeStream`, done before it returns. */
  completeStreamNow(streamId: string): void;
}

/**
 * A store's immediate writes, or undefined: a store without them, or one whose `storeEvent` or `completeStream`
 * is not its class's own (a subclass or wrapper that counts, delays or fails writes is always called).
 */
export function immediateWritesOf(store: EventStore | undefined): ImmediateWrites | undefined {
  return (store as { [IMMEDIATE_WRITES]?: ImmediateWrites } | undefined)?.[IMMEDIATE_WRITES];
}
