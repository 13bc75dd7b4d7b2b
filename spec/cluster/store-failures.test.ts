/**
 * When a store or the bus does not answer, requests that need it fail fast with 503 and Retry-After (the failure
 * goes to onError), never 500, and what needs neither keeps working.
 */
import { InMemoryEventStore, InMemoryMessageBus, InMemorySessionStore, LocalSessionManager, type SessionState, type SseEvent } from '../../lib/index.js';
import { clientHeaders, initializeRequest, openLive } from '../helpers/http-helpers.js';
import { callTool } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';
import { buildServer } from './fixture.js';

/** A session store that can be switched off, as Redis can go down. */
class FlakySessionStore extends InMemorySessionStore {
  down = false;
  override async load(sessionId: string): Promise<SessionState | undefined> {
    if (this.down) throw new Error('session store down');
    return super.load(sessionId);
  }
  override async delete(sessionId: string): Promise<void> {
    if (this.down) throw new Error('session store down');
    return super.delete(sessionId);
  }
}

/** A bus whose publishes fail while it is down. */
class FlakyBus extends InMemoryMessageBus {
  down = false;
  override async publish(channel: string, message: unknown): Promise<void> {
    if (this.down) throw new Error('bus down');
    return super.publish(channel, message);
  }
}

const servers: Served[] = [];
afterEach(async () => {
  for (const served of servers.splice(0)) await served.close();
});

async function start(sessionStore: FlakySessionStore, bus: FlakyBus, errors: unknown[]): Promise<Served> {
  const served = await serve({
    server: buildServer('x', { aborted: [], ran: [] }),
    sseKeepAlive: 0,
    bus,
    sessionManager: new LocalSessionManager({ sessionStore, onError: (error) => errors.push(error) }),
    onError: (error) => errors.push(error),
  });
  servers.push(served);
  return served;
}

async function initialize(served: Served): Promise<string> {
  const live = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest('2025-11-25', 0) });
  await live.ended;
  return live.headers['mcp-session-id'] as string;
}

async function send(served: Served, method: string, sessionId: string, body?: unknown) {
  const live = await openLive(served, { method, headers: clientHeaders('2025-11-25', sessionId), body });
  await live.ended;
  return live;
}

test('a restore while the session store is down: 503 with Retry-After, not 500; served again once it is back', async () => {
  const errors: unknown[] = [];
  const store = new FlakySessionStore();
  const bus = new FlakyBus();
  const a = await start(store, bus, errors);
  const b = await start(store, bus, errors);
  const sessionId = await initialize(a);
  store.down = true;
  const refused = await send(b, 'POST', sessionId, { jsonrpc: '2.0', id: 1, method: 'ping' });
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toBe('2');
  expect(errors.map((error) => (error as Error).message)).toContain('session store down');
  // A 2026-07-28 request needs no store: still served.
  expect((await callTool(b.port, 'slow_count', { n: 0, intervalMs: 0 })).status).toBe(200);
  store.down = false;
  expect((await send(b, 'POST', sessionId, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(200);
});

test('DELETE while the session store is down: 503, and the session goes on', async () => {
  const store = new FlakySessionStore();
  const a = await start(store, new FlakyBus(), []);
  const sessionId = await initialize(a);
  store.down = true;
  expect((await send(a, 'DELETE', sessionId)).status).toBe(503);
  store.down = false;
  expect((await send(a, 'POST', sessionId, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(200);
  expect((await send(a, 'DELETE', sessionId)).status).toBe(200);
});

test('a client answer for a request on another instance while the bus is down: 503, so the client sends it again', async () => {
  const bus = new FlakyBus();
  const a = await start(new FlakySessionStore(), bus, []);
  const sessionId = await initialize(a);
  bus.down = true;
  const answer = await send(a, 'POST', sessionId, { jsonrpc: '2.0', id: '0badc0de-1', result: { action: 'accept', content: {} } });
  expect(answer.status).toBe(503);
  bus.down = false;
  expect((await send(a, 'POST', sessionId, { jsonrpc: '2.0', id: '0badc0de-1', result: { action: 'accept', content: {} } })).status).toBe(202);
});

test('initialize while the session store is down: 503 (a session no instance could restore is not handed out)', async () => {
  const store = new (class extends FlakySessionStore {
    override async store(sessionId: string, state: SessionState): Promise<void> {
      if (this.down) throw new Error('session store down');
      return super.store(sessionId, state);
    }
  })();
  const a = await start(store, new FlakyBus(), []);
  store.down = true;
  const refused = await openLive(a, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest('2025-11-25', 7) });
  await refused.ended;
  expect(refused.status).toBe(503);
  expect(refused.headers['mcp-session-id']).toBeUndefined();
  expect(JSON.parse(refused.text())).toMatchObject({ id: 7, error: { code: -32000 } });
  store.down = false;
  expect(await initialize(a)).toMatch(/^[0-9a-f-]{36}$/);
});

test('an event store that fails mid-stream: the reply still goes out live, without waiting on the store for each event', async () => {
  let failing = false;
  let writes = 0;
  const eventStore = new (class extends InMemoryEventStore {
    override async storeEvent(streamId: string, event: SseEvent): Promise<string> {
      writes++;
      if (failing) throw new Error('event store down');
      return super.storeEvent(streamId, event);
    }
  })();
  const served = await serve({ server: buildServer('x', { aborted: [], ran: [] }), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore, onError: () => undefined }) });
  servers.push(served);
  const sessionId = await initialize(served);
  failing = true;
  writes = 0;
  const call = await openLive(served, {
    method: 'POST',
    headers: clientHeaders('2025-11-25', sessionId),
    body: { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'slow_count', arguments: { n: 20, intervalMs: 1 }, _meta: { progressToken: 'p' } } },
    waitForHeaders: false,
  });
  await call.ended;
  expect(call.messages().at(-1)).toMatchObject({ id: 8, result: { content: [{ text: 'counted 20' }] } });
  // One failed write (the priming event), then nothing more was tried on this stream.
  expect(writes).toBe(1);
});

test('mcp.ready() rejects when the bus refuses the subscriptions at start-up', async () => {
  const bus = new (class extends InMemoryMessageBus {
    override async subscribe(): Promise<() => Promise<void>> {
      throw new Error('bus unreachable');
    }
  })();
  const errors: unknown[] = [];
  const served = await serve({ server: buildServer('x', { aborted: [], ran: [] }), sseKeepAlive: 0, bus, onError: (error) => errors.push(error) });
  servers.push(served);
  await expect(served.middleware.ready()).rejects.toThrow('bus unreachable');
  expect(errors.length).toBeGreaterThan(0);
});
