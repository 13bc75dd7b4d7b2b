/**
 * A stream's lease may be released only once its final response is in the EventStore: a resume on another instance
 * that finds the lease released reads the store one last time and ends. Found by the SIGTERM trials of
 * spec/processes (a resume on another process ended after the last progress event, without the result, about one
 * trial in twenty); here the store is slow to write responses, so the order shows every time.
 */
import type { EventStore, SseEvent } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';
import { sharedStores, startInstance, type Instance, type Journal } from './fixture.js';

const VERSION = '2025-11-25';
const instances: Instance[] = [];
const open: LiveResponse[] = [];
afterEach(async () => {
  for (const live of open.splice(0)) live.close();
  for (const instance of instances.splice(0)) await instance.close();
});

/** The same store, but a response takes `delayMs` to be written (a slow moment of Redis). */
function slowToStoreResponses(inner: EventStore, delayMs: number): EventStore {
  return {
    async storeEvent(streamId: string, event: SseEvent) {
      if (event.message !== undefined && !('method' in event.message)) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return inner.storeEvent(streamId, event);
    },
    replayEventsAfter: (lastEventId) => inner.replayEventsAfter(lastEventId),
    streamIdOf: (eventId) => inner.streamIdOf(eventId),
    completeStream: (streamId) => inner.completeStream!(streamId),
  };
}

test('a resume elsewhere of a stream that finishes while its result is still being stored gets the result', async () => {
  const journal: Journal = { aborted: [], ran: [] };
  const shared = sharedStores();
  const a = await startInstance('A', { ...shared, eventStore: slowToStoreResponses(shared.eventStore, 150) }, journal);
  const b = await startInstance('B', shared, journal);
  instances.push(a, b);
  const init = await openLive(a, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
  await init.ended;
  const sessionId = init.headers['mcp-session-id'] as string;
  const call = await openLive(a, {
    method: 'POST',
    headers: clientHeaders(VERSION, sessionId),
    body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow_count', arguments: { n: 5, intervalMs: 20 }, _meta: { progressToken: 't' } } },
    waitForHeaders: false,
  });
  open.push(call);
  await call.waitFor((text) => text.includes('"progress":1'));
  const lastId = [...call.frames()].reverse().find((frame) => frame.id !== undefined)!.id!;
  call.close();

  const resumed = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
  open.push(resumed);
  await resumed.ended;
  expect(resumed.messages().at(-1)).toMatchObject({ id: 3, result: { content: [{ text: 'counted 5' }] } });
});
