import type { EventStore } from '../store/event-store.js';
import { SseChannel } from './sse-channel.js';
import type { SseEvent, SseStream } from '../store/sse-event.js';

/** The events an EventStore holds after `lastEventId`, as a finite stream (a store failure ends it). */
export async function* replayFromStore(store: EventStore, lastEventId: string, onError: (error: unknown) => void): AsyncGenerator<SseEvent> {
  try {
    for await (const stored of store.replayEventsAfter(lastEventId)) {
      yield { id: stored.id, message: stored.event.message, retry: stored.event.retry };
    }
  } catch (error) {
    onError(error);
  }
}

/** A stream that ends at once: the answer to a resume with nothing to replay. */
export function closedStream(): SseStream {
  const channel = new SseChannel();
  channel.end();
  return channel;
}
