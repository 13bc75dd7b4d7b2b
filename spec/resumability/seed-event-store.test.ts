/**
 * Port of rmcp's `restored_instance_replays_events_from_shared_store`
 * (shared/seeds/rmcp-test_streamable_http_event_store.rs.txt): two instances share a SessionStore and an
 * EventStore; A serves initialize and a tool call that emits progress and is shut down; B restores the session
 * and, given the progress event's id, replays the final response.
 */
import { LocalSessionManager, InMemorySessionStore, InMemoryEventStore } from '../../lib/index.js';
import { initializeOn, progressServer, replayOnSecondInstance } from '../helpers/seed-scenario.js';
import { closeAfterEach, serve, type Served } from '../helpers/serve.js';

const track = closeAfterEach();

test('instance B replays from the shared store the response instance A stored', async () => {
  const sessionStore = new InMemorySessionStore();
  const eventStore = new InMemoryEventStore();
  const start = (): Promise<Served> =>
    serve({ server: progressServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ sessionStore, eventStore }) });
  const { b, replayStatus, replayBody } = await replayOnSecondInstance(start);
  track(b);
  expect(replayStatus).toBe(200);
  expect(replayBody).toContain('"id":2');
  expect(replayBody).not.toContain('notifications/progress');
});

test('instance B serves a new request in a session that only instance A saw initialize', async () => {
  const sessionStore = new InMemorySessionStore();
  const a = track(await serve({ server: progressServer(), sessionManager: new LocalSessionManager({ sessionStore }) }));
  const b = track(await serve({ server: progressServer(), sessionManager: new LocalSessionManager({ sessionStore }) }));
  const bare = track(await serve({ server: progressServer() }));
  const headers = await initializeOn(a.url, '2025-11-25');
  const body = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';

  const withoutStore = await fetch(bare.url, { method: 'POST', headers, body });
  expect(withoutStore.status).toBe(404);
  await withoutStore.text();

  const restored = await fetch(b.url, { method: 'POST', headers, body });
  expect(restored.status).toBe(200);
  expect(await restored.text()).toContain('"name":"progress"');

  // DELETE on B removes the stored state: A's copy is gone from the store, and B answers 404.
  const deleted = await fetch(b.url, { method: 'DELETE', headers });
  expect(deleted.status).toBe(200);
  expect(sessionStore.size).toBe(0);
  const afterDelete = await fetch(b.url, { method: 'POST', headers, body });
  expect(afterDelete.status).toBe(404);
});

test('concurrent requests for an unknown session restore it once', async () => {
  const inner = new InMemorySessionStore();
  let loads = 0;
  const counting = {
    load: async (id: string) => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return inner.load(id);
    },
    store: (id: string, state: Parameters<InMemorySessionStore['store']>[1]) => inner.store(id, state),
    delete: (id: string) => inner.delete(id),
  };
  const a = track(await serve({ server: progressServer(), sessionManager: new LocalSessionManager({ sessionStore: inner }) }));
  const b = track(await serve({ server: progressServer(), sessionManager: new LocalSessionManager({ sessionStore: counting }) }));
  const headers = await initializeOn(a.url, '2025-11-25');
  const responses = await Promise.all(
    [2, 3, 4, 5].map((id) => fetch(b.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) })),
  );
  expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
  await Promise.all(responses.map((response) => response.text()));
  expect(loads).toBe(1);
});
