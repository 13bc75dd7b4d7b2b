/**
 * A session stream over an InMemoryEventStore stores each event and delivers it in the same step (the store's
 * immediate writes), while any other store, a subclass that overrides `storeEvent` or `completeStream` included,
 * is called through its own methods and its events are delivered once the write resolves. Either way the client
 * gets the store's ids, and a failing store lets the stream go on without ids.
 */
import { OutboundStream } from '../../lib/session/outbound-stream.js';
import type { SseChannel } from '../../lib/session/sse-channel.js';
import { immediateWritesOf } from '../../lib/store/immediate-writes.js';
import { InMemoryEventStore } from '../../lib/store/in-memory-event-store.js';
import type { EventStore } from '../../lib/store/event-store.js';
import type { SseEvent } from '../../lib/store/sse-event.js';

const STREAM_ID = 'session-1/abc.1';

function streamOver(eventStore: EventStore, onStoreError: (error: unknown) => void = () => undefined): { stream: OutboundStream; channel: SseChannel } {
  const stream = new OutboundStream(1, 'abc.1', STREAM_ID, {
    cacheLimit: 64,
    cacheByteLimit: 1 << 20,
    maxBufferedBytes: 1 << 20,
    sseRetry: 1000,
    eventStore,
    onStoreError,
  });
  return { stream, channel: stream.connect(undefined) };
}

const response = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [{ type: 'text', text: String(id) }] } });

function queued(channel: SseChannel): SseEvent[] {
  const events: SseEvent[] = [];
  for (let event = channel.takeQueued(); event !== undefined; event = channel.takeQueued()) events.push(event);
  return events;
}

describe('immediateWritesOf', () => {
  test('an InMemoryEventStore, or a subclass that keeps its storeEvent and completeStream, has immediate writes', () => {
    const store = new InMemoryEventStore();
    expect(immediateWritesOf(store)).toBe(store);
    class Named extends InMemoryEventStore {
      label = 'named';
    }
    const named = new Named();
    expect(immediateWritesOf(named)).toBe(named);
  });

  test('a subclass that overrides storeEvent or completeStream, a plain EventStore and no store have none', () => {
    class Counting extends InMemoryEventStore {
      override async storeEvent(streamId: string, event: SseEvent): Promise<string> {
        return super.storeEvent(streamId, event);
      }
    }
    class Completing extends InMemoryEventStore {
      override async completeStream(streamId: string): Promise<void> {
        await super.completeStream(streamId);
      }
    }
    const inner = new InMemoryEventStore();
    const wrapper: EventStore = {
      storeEvent: (streamId, event) => inner.storeEvent(streamId, event),
      replayEventsAfter: (id) => inner.replayEventsAfter(id),
      streamIdOf: (id) => inner.streamIdOf(id),
    };
    expect(immediateWritesOf(new Counting())).toBeUndefined();
    expect(immediateWritesOf(new Completing())).toBeUndefined();
    expect(immediateWritesOf(wrapper)).toBeUndefined();
    expect(immediateWritesOf(undefined)).toBeUndefined();
  });
});

describe('a session stream over an InMemoryEventStore', () => {
  test('stores an event and delivers it with its store id at once; the completion is stored at once too', async () => {
    const store = new InMemoryEventStore();
    const { stream, channel } = streamOver(store);
    stream.send(response(1));
    expect(stream.storing).toBe(false);
    const [event] = queued(channel);
    expect(event.id).toBe(`${STREAM_ID}#1`);
    expect(JSON.parse(event.data!)).toEqual(response(1));
    stream.complete(Date.now());
    expect(await store.isStreamComplete(STREAM_ID)).toBe(true);
    expect(channel.exhausted).toBe(true);
    const replayed = [];
    for await (const stored of store.replayEventsAfter(store.startEventId(STREAM_ID))) replayed.push(stored);
    expect(replayed).toEqual([{ id: `${STREAM_ID}#1`, event: { message: response(1), retry: undefined } }]);
  });

  test('a subclass that overrides storeEvent is called for every event, and its events are delivered once stored', async () => {
    const calls: string[] = [];
    class Counting extends InMemoryEventStore {
      override async storeEvent(streamId: string, event: SseEvent): Promise<string> {
        calls.push(streamId);
        return super.storeEvent(streamId, event);
      }
    }
    const { stream, channel } = streamOver(new Counting());
    stream.send(response(1));
    stream.send(response(2));
    expect(stream.storing).toBe(true);
    expect(queued(channel)).toEqual([]); // not stored yet
    await stream.stored();
    expect(calls).toEqual([STREAM_ID, STREAM_ID]);
    expect(queued(channel).map((event) => event.id)).toEqual([`${STREAM_ID}#1`, `${STREAM_ID}#2`]);
    expect(stream.storing).toBe(false);
  });

  test('a write that fails is reported, and the stream goes on live without ids and without the store', () => {
    const errors: unknown[] = [];
    let writes = 0;
    class Failing extends InMemoryEventStore {
      override storeEventNow(streamId: string, event: SseEvent): string {
        if (++writes === 1) throw new Error('store is full');
        return super.storeEventNow(streamId, event);
      }
    }
    const { stream, channel } = streamOver(new Failing(), (error) => errors.push(error));
    stream.send(response(1));
    stream.send(response(2));
    const events = queued(channel);
    expect(events.map((event) => [event.id, JSON.parse(event.data!).id])).toEqual([
      [undefined, 1],
      [undefined, 2],
    ]);
    expect(writes).toBe(1); // after a failure the store is not asked again for this stream
    expect(errors).toEqual([new Error('store is full')]);
  });

  test('an event sent while an earlier step of the stream is pending waits for it, and the order holds', async () => {
    const store = new InMemoryEventStore();
    const { stream, channel } = streamOver(store);
    stream.send(response(1));
    // A resume from the store queues a replay step: later events go behind it instead of being delivered at once.
    const resumed = stream.resumeFromStore(store.startEventId(STREAM_ID));
    stream.send(response(2));
    expect(stream.storing).toBe(true);
    await stream.stored();
    const ids = queued(resumed).map((event) => event.id);
    expect(ids).toEqual([`${STREAM_ID}#1`, `${STREAM_ID}#2`]);
    expect(channel.isOpen).toBe(false); // the resumed connection took over
  });
});
