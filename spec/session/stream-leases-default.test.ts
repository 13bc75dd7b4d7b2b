/**
 * The session managers take no stream leases unless `streamLeases` is given (leases only the manager itself could
 * read tell nothing), and a drain still waits for the final responses to be stored. With leases given (and no lease
 * delay: lease-delay.test.ts has the delay), they are taken when a request starts and released once its final
 * response is stored.
 */
import { z } from 'zod';
import { InMemoryEventStore, InMemoryStreamLeases, LocalSessionManager, McpServer, type SseEvent, type StreamLeaseInfo } from '../../lib/index.js';
import { LeaseKeeper } from '../../lib/session/lease-keeper.js';
import { clientHeaders, closeLiveAfterEach, initializeRequest, type LiveResponse, openLive } from '../helpers/http-helpers.js';
import { keptStream } from '../helpers/kept-stream.js';
import { closeAfterEach, serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH } from '../helpers/wire.js';

const VERSION = '2025-11-25';

/** An InMemoryEventStore whose writes take `delayMs` (a remote store), counting what it was asked to store. */
class SlowEventStore extends InMemoryEventStore {
  readonly stored: SseEvent[] = [];
  constructor(private readonly delayMs: number) {
    super();
  }
  override async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const id = await super.storeEvent(streamId, event);
    this.stored.push(event);
    return id;
  }
}

/** InMemoryStreamLeases that records the calls made to it. */
class RecordingLeases extends InMemoryStreamLeases {
  readonly calls: string[] = [];
  override acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void> {
    this.calls.push(`acquire ${streamId}`);
    return super.acquire(streamId, info, ttlMs, keepMs);
  }
  override release(streamId: string): Promise<void> {
    this.calls.push(`release ${streamId}`);
    return super.release(streamId);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const keeperOptions = { ttlMs: 1000, delayMs: 0, keepMs: 60_000, followIntervalMs: 10, onError: (error: unknown) => { throw error; } };

describe('LeaseKeeper', () => {
  test('without leases: take() holds nothing, and settled() still waits for a finished stream\'s store writes', async () => {
    const keeper = new LeaseKeeper({ ...keeperOptions, leases: undefined });
    keeper.take(keptStream('s/1'), 1);
    expect(keeper.size).toBe(0);
    const writes = deferred();
    keeper.releaseWhenStored({ streamId: 's/1', stored: () => writes.promise });
    let settled = false;
    const waiting = keeper.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    writes.resolve();
    await waiting;
    expect(settled).toBe(true);
    keeper.stop();
  });

  test('with leases: taken at once, released only once the stream is stored', async () => {
    const leases = new RecordingLeases();
    const keeper = new LeaseKeeper({ ...keeperOptions, leases });
    keeper.take(keptStream('s/2'), 7);
    expect(keeper.size).toBe(1);
    expect(await leases.inspect('s/2')).toMatchObject({ held: true, released: false, info: { requestId: 7 } });
    const writes = deferred();
    keeper.releaseWhenStored({ streamId: 's/2', stored: () => writes.promise });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(leases.calls).toEqual(['acquire s/2']);
    writes.resolve();
    await keeper.settled();
    expect(leases.calls).toEqual(['acquire s/2', 'release s/2']);
    expect(await leases.inspect('s/2')).toMatchObject({ released: true });
    keeper.stop();
  });
});

describe('LocalSessionManager and its streamLeases option', () => {
  const track = closeAfterEach();
  const open = closeLiveAfterEach();

  function slowServer(): McpServer {
    const server = new McpServer({ name: 'leases', version: '1.0.0' });
    server.tool('sum', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    server.tool('forever', {}, async (_args, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return { content: [{ type: 'text', text: 'aborted' }] };
    });
    return server;
  }

  async function session(served: Served): Promise<string> {
    const live = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
    await live.ended;
    return live.headers['mcp-session-id'] as string;
  }

  function call(served: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}): Promise<LiveResponse> {
    return openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, waitForHeaders: false });
  }

  test('given leases and leaseDelayMs: 0, each call takes one when it starts and releases it once its response is stored', async () => {
    const leases = new RecordingLeases();
    const served = await serve({ server: slowServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore: new InMemoryEventStore(), streamLeases: leases, leaseDelayMs: 0 }) });
    track(served);
    const sessionId = await session(served);
    const before = leases.calls.length;
    const live = await call(served, sessionId, 1, 'sum', { a: 2, b: 3 });
    open.push(live);
    await live.ended;
    expect(live.messages().at(-1)).toMatchObject({ id: 1, result: { content: [{ text: '5' }] } });
    await served.middleware.close({ drainTimeout: 1000 });
    const calls = leases.calls.slice(before);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(new RegExp(`^acquire ${sessionId}/`));
    expect(calls[1]).toBe(calls[0].replace('acquire', 'release'));
  });

  test('without streamLeases, a drain ends a running call with an error response that is in the store when close() resolves', async () => {
    const eventStore = new SlowEventStore(150);
    const served = await serve({ server: slowServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore }) });
    track(served);
    const sessionId = await session(served);
    const live = await call(served, sessionId, 2, 'forever');
    open.push(live);
    await live.waitFor((text) => text.includes('id:'));
    await served.middleware.close({ drainTimeout: 50 });
    // Resolved only after the slow store took the ending: a resume on another instance finds it there.
    expect(eventStore.stored.map((event) => event.message)).toContainEqual(expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32603 }) }));
  });
});
