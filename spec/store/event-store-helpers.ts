/** Small helpers for event store specs (any EventStore implementation). */
import type { EventStore, SseEvent } from '../../lib/index.js';

export const event = (method: string): SseEvent => ({ message: { jsonrpc: '2.0', method } });

/** The ids and methods a replay after `id` yields, in order. */
export async function replay(store: EventStore, id: string): Promise<Array<{ id: string; method: string }>> {
  const out = [];
  for await (const stored of store.replayEventsAfter(id)) out.push({ id: stored.id, method: (stored.event.message as { method: string }).method });
  return out;
}

/** Stores one event per method on `streamId`; returns their ids. */
export async function storeAll(store: EventStore, streamId: string, methods: string[]): Promise<string[]> {
  const ids = [];
  for (const method of methods) ids.push(await store.storeEvent(streamId, event(method)));
  return ids;
}
