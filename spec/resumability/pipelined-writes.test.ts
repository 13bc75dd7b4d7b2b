/**
 * A stream's store writes with a store that keeps the order of writes made without waiting (`keepsWriteOrder`): they
 * are sent at once (pipelined), and still recorded and delivered in order, each with the id its write returned. A
 * store without it gets each write only once the previous one is acknowledged.
 */
import { z } from 'zod';
import { InMemoryEventStore, LocalSessionManager, McpServer, type SseEvent } from '../../lib/index.js';
import { RawClient, readUntil } from '../helpers/raw-client.js';
import { parseSse } from '../helpers/sse.js';
import { serve, type Served } from '../helpers/serve.js';

/** An in-memory store whose acknowledgements wait until the test lets them go, one by one, in call order. */
class GatedEventStore extends InMemoryEventStore {
  /** What each storeEvent call carried, at the time of the call. */
  readonly calls: string[] = [];
  /** How many calls were waiting for an acknowledgement when each call was made. */
  readonly waitingAtCall: number[] = [];
  private readonly gates: Array<() => void> = [];
  private waiting = 0;
  /** The index in `calls` of a write to fail (its acknowledgement is an error). */
  failAt = -1;

  constructor(override readonly keepsWriteOrder: boolean) {
    super();
  }

  override async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    const fail = this.calls.length === this.failAt;
    this.calls.push(event.message === undefined ? 'priming' : 'method' in event.message ? event.message.method : 'response');
    this.waitingAtCall.push(this.waiting);
    // The write happens now, in call order (as on one Redis connection); only its acknowledgement waits.
    const written = fail ? undefined : super.storeEvent(streamId, event);
    this.waiting++;
    await new Promise<void>((resolve) => this.gates.push(resolve));
    this.waiting--;
    if (fail) throw new Error('store write failed');
    return written!;
  }

  /** Acknowledges the writes made so far, oldest first, each in its own turn of the event loop. */
  async acknowledgeAll(): Promise<void> {
    while (this.gates.length > 0) {
      this.gates.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** A tool that sends progress 1, waits for the test, sends progress 2, then answers. */
function pausingServer(go: Promise<void>): McpServer {
  const server = new McpServer({ name: 'pausing', version: '1.0.0' });
  server.tool('pause', { description: 'progress, wait, progress, result' }, async (_args, ctx) => {
    await ctx.progress(1, 2);
    await go;
    await ctx.progress(2, 2);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

function progressServer(): McpServer {
  const server = new McpServer({ name: 'pipelined', version: '1.0.0' });
  server.tool('steps', { description: 'Three progress notifications, then the result', inputSchema: { n: z.number() } }, async ({ n }, ctx) => {
    for (let step = 1; step <= n; step++) void ctx.progress(step, n);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

const servers: Served[] = [];
afterEach(async () => {
  for (const served of servers.splice(0)) await served.close();
});

/** A server on the gated store, and a client with its session open (initialize's own writes acknowledged). */
async function serveGated(store: GatedEventStore, server: McpServer, errors: unknown[] = []): Promise<{ served: Served; client: RawClient }> {
  const served = await serve({ server, sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore: store, onError: (error) => errors.push(error) }) });
  servers.push(served);
  const client = new RawClient(served.url);
  let initialized = false;
  const initializing = client.initialize().then(() => {
    initialized = true;
  });
  while (!initialized) {
    await store.acknowledgeAll();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await initializing;
  return { served, client };
}

async function callSteps(store: GatedEventStore, failAt = -1) {
  const errors: unknown[] = [];
  const { client } = await serveGated(store, progressServer(), errors);
  store.calls.length = 0;
  store.waitingAtCall.length = 0;
  store.failAt = failAt;
  const pending = client.call({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'steps', arguments: { n: 3 }, _meta: { progressToken: 't' } } });
  return { pending, errors };
}

/** An SSE event as the test names it: the priming event (no data), a progress value, or the result. */
function kindOf(event: { data?: string }): string | number {
  if (!event.data) return 'priming';
  const message = JSON.parse(event.data) as { params?: { progress?: number } };
  return message.params?.progress ?? 'result';
}

async function untilCalls(store: GatedEventStore, n: number): Promise<void> {
  const deadline = Date.now() + 3000;
  while (store.calls.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${store.calls.length} of ${n} store writes were made`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

test('a store that keeps write order gets the stream\'s writes at once; they are delivered in order with their ids', async () => {
  const store = new GatedEventStore(true);
  const { pending, errors } = await callSteps(store);
  await untilCalls(store, 4);
  // All four writes were made while the first still waited for its acknowledgement: pipelined. (The priming event
  // takes no write: its id is the store's startEventId.)
  expect(store.calls).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response']);
  expect(store.waitingAtCall).toEqual([0, 1, 2, 3]);
  await store.acknowledgeAll();
  const { status, events } = await pending;
  expect(status).toBe(200);
  const ids = events.map((event) => event.id);
  expect(ids.every((id) => typeof id === 'string' && /#\d+$/.test(id))).toBe(true);
  const seqs = ids.map((id) => Number(id!.split('#')[1]));
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs); // in order
  expect(events.map(kindOf)).toEqual(['priming', 1, 2, 3, 'result']);
  expect(errors).toEqual([]);
});

test('a store without keepsWriteOrder gets each write only after the previous one was acknowledged', async () => {
  const store = new GatedEventStore(false);
  const { pending } = await callSteps(store);
  await untilCalls(store, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(store.calls).toEqual(['notifications/progress']); // the rest waits behind its acknowledgement
  for (let n = 2; n <= 4; n++) {
    await store.acknowledgeAll();
    await untilCalls(store, n);
  }
  expect(store.waitingAtCall).toEqual([0, 0, 0, 0]);
  await store.acknowledgeAll();
  const { status, events } = await pending;
  expect(status).toBe(200);
  expect(events.map(kindOf)).toEqual(['priming', 1, 2, 3, 'result']);
});

test('pipelined writes after a failed one: every event still reaches the client, in order; the failure goes to onError', async () => {
  const store = new GatedEventStore(true);
  const { pending, errors } = await callSteps(store, 0); // the first progress write fails
  await untilCalls(store, 4);
  await store.acknowledgeAll();
  const { status, events } = await pending;
  expect(status).toBe(200);
  expect(events.map(kindOf)).toEqual(['priming', 1, 2, 3, 'result']);
  // From the failure on, events go out without ids (no resume promised for what the store may lack).
  expect(events.map((event) => event.id !== undefined)).toEqual([true, false, false, false, false]);
  expect(errors.map((error) => (error as Error).message)).toContain('store write failed');
});

// With keepsWriteOrder: no write goes ahead of the replay (it would reach the new connection twice). Either way:
// the events of a stream that completed while they waited behind the replay still reach it (they were lost before).
test.each([true, false])('a resume from the store while writes are pending gets every event once (keepsWriteOrder %s)', async (keepsWriteOrder) => {
  const store = new GatedEventStore(keepsWriteOrder);
  let release: () => void = () => undefined;
  const go = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { served, client } = await serveGated(store, pausingServer(go));
  // The call: the priming event comes at once (no write); progress 1 is written, its acknowledgement held.
  const leave = new AbortController();
  const call = await fetch(served.url, {
    method: 'POST',
    headers: client.headers(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'pause', arguments: {}, _meta: { progressToken: 'p' } } }),
    signal: leave.signal,
  });
  const { text } = await readUntil(call, (read) => read.includes('retry:'));
  const primingId = parseSse(text)[0].id!;
  leave.abort(); // the client goes away; with a store the request goes on
  await new Promise((resolve) => setTimeout(resolve, 20));
  // It resumes while progress 1's write is still pending; then the tool goes on (progress 2, the result).
  const resumed = await client.get({ 'Last-Event-ID': primingId });
  release();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const body = resumed.text();
  for (let round = 0; round < 20; round++) {
    await store.acknowledgeAll();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const events = parseSse(await body).filter((event) => event.data);
  expect(events.map(kindOf)).toEqual([1, 2, 'result']);
  expect(new Set(events.map((event) => event.id)).size).toBe(3);
});
