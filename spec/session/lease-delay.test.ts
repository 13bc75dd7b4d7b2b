/**
 * Stream leases are taken only for requests that run longer than `leaseDelayMs`: a call that completes sooner takes
 * none (no lease commands). Until a stream's lease is held it delivers nothing to the client, so a client never
 * holds an id of a stream that no instance could tell running from lost.
 */
import { z } from 'zod';
import { InMemoryEventStore, InMemoryStreamLeases, LocalSessionManager, McpServer, NeverSessionManager, type StreamLeaseInfo } from '../../lib/index.js';
import { LeaseKeeper } from '../../lib/session/lease-keeper.js';
import { clientHeaders, deferred, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { closeAfterEach, serve, type Served } from '../helpers/serve.js';
import { envelope, MODERN, modernHeaders } from '../helpers/modern.js';
import { ACCEPT_BOTH, sleep } from '../helpers/wire.js';

const VERSION = '2025-11-25';

/**
 * InMemoryStreamLeases that logs its calls, and when each acquire has been applied, into a shared timeline. An
 * acquire takes a remote store's round trip (20 ms), or until `gate` opens when one is set.
 */
class TimelineLeases extends InMemoryStreamLeases {
  gate: Promise<void> | undefined;
  constructor(private readonly timeline: string[]) {
    super();
  }
  override async acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number): Promise<void> {
    this.timeline.push(`acquire ${info.requestId}`);
    await (this.gate ?? sleep(20));
    await super.acquire(streamId, info, ttlMs, keepMs);
    this.timeline.push(`acquired ${info.requestId}`);
  }
  override release(streamId: string): Promise<void> {
    this.timeline.push('release');
    return super.release(streamId);
  }
}

/** Resolves once `check()` holds (polled every 5 ms); rejects after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(5);
  }
}

/** A stream as the keeper sees it, recording whether its delivery is held. */
function keptStream(streamId: string) {
  return {
    streamId,
    holding: false,
    leaseNow: undefined as (() => Promise<void>) | undefined,
    stored: () => Promise.resolve(),
    holdDelivery(leaseNow: () => Promise<void>) {
      this.holding = true;
      this.leaseNow = leaseNow;
    },
    releaseDelivery() {
      this.holding = false;
    },
  };
}

describe('LeaseKeeper with a lease delay', () => {
  const options = { ttlMs: 1000, keepMs: 60_000, followIntervalMs: 10, onError: (error: unknown) => { throw error; } };

  test('a stream that completes within the delay takes no lease, and its delivery stays with the stream', async () => {
    const timeline: string[] = [];
    const keeper = new LeaseKeeper({ ...options, delayMs: 30, leases: new TimelineLeases(timeline) });
    const stream = keptStream('s/1');
    keeper.take(stream, 1);
    expect(stream.holding).toBe(true);
    keeper.releaseWhenStored(stream);
    await keeper.settled();
    await sleep(100);
    expect(timeline).toEqual([]);
    // The keeper never releases it: the stream's own completion does, once everything is stored.
    expect(stream.holding).toBe(true);
    keeper.stop();
  });

  test('a stream still running after the delay takes its lease, and delivers once it is held', async () => {
    const timeline: string[] = [];
    const leases = new TimelineLeases(timeline);
    const gate = deferred();
    leases.gate = gate.promise;
    const keeper = new LeaseKeeper({ ...options, delayMs: 60, leases });
    const stream = keptStream('s/2');
    const started = Date.now();
    keeper.take(stream, 2);
    await until(() => timeline.length > 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(59);
    expect(timeline).toEqual(['acquire 2']);
    expect(stream.holding).toBe(true);
    gate.resolve();
    await until(() => !stream.holding);
    expect(timeline).toEqual(['acquire 2', 'acquired 2']);
    expect(keeper.size).toBe(1);
    keeper.releaseWhenStored(stream);
    await keeper.settled();
    expect(timeline).toEqual(['acquire 2', 'acquired 2', 'release']);
    keeper.stop();
  });

  test('leaseNow takes the lease before it is due, once', async () => {
    const timeline: string[] = [];
    const keeper = new LeaseKeeper({ ...options, delayMs: 30, leases: new TimelineLeases(timeline) });
    const stream = keptStream('s/3');
    keeper.take(stream, 3);
    const now = stream.leaseNow!();
    expect(stream.leaseNow!()).toBe(now);
    await now;
    expect(stream.holding).toBe(false);
    await sleep(80);
    expect(timeline).toEqual(['acquire 3', 'acquired 3']);
    keeper.stop();
  });

  test('a request cancelled before its lease was due takes none, even when its connection is closed afterwards', async () => {
    const timeline: string[] = [];
    const keeper = new LeaseKeeper({ ...options, delayMs: 30, leases: new TimelineLeases(timeline) });
    const stream = keptStream('s/4');
    keeper.take(stream, 4);
    keeper.release('s/4');
    await stream.leaseNow!();
    expect(stream.holding).toBe(false);
    await sleep(80);
    expect(timeline).toEqual([]);
    keeper.stop();
  });
});

describe('LocalSessionManager with streamLeases and leaseDelayMs', () => {
  const track = closeAfterEach();
  const open: LiveResponse[] = [];
  afterEach(() => {
    for (const live of open.splice(0)) live.close();
  });

  function toolServer(): McpServer {
    const server = new McpServer({ name: 'lease-delay', version: '1.0.0' });
    server.tool('sum', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    server.tool('slow', {}, async (_args, ctx) => {
      await ctx.progress(1, 2);
      await sleep(150);
      return { content: [{ type: 'text', text: 'done' }] };
    });
    server.tool('closes', {}, async (_args, ctx) => {
      ctx.closeSSEStream(50);
      await sleep(100);
      return { content: [{ type: 'text', text: 'closed and done' }] };
    });
    return server;
  }

  async function start(options: { leaseDelayMs?: number } = {}): Promise<{ served: Served; sessionId: string; timeline: string[] }> {
    const timeline: string[] = [];
    const served = await serve({
      server: toolServer(),
      sseKeepAlive: 0,
      sessionManager: new LocalSessionManager({ eventStore: new InMemoryEventStore(), streamLeases: new TimelineLeases(timeline), ...options }),
    });
    track(served);
    const init = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
    await init.ended;
    return { served, sessionId: init.headers['mcp-session-id'] as string, timeline };
  }

  async function call(served: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<LiveResponse> {
    const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
    const live = await openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', id, method: 'tools/call', params }, waitForHeaders: false });
    open.push(live);
    return live;
  }

  test('a call that completes within the delay takes no lease and is answered as before (priming event, then the response)', async () => {
    const { served, sessionId, timeline } = await start();
    for (let id = 1; id <= 5; id++) {
      const live = await call(served, sessionId, id, 'sum', { a: id, b: 3 });
      await live.ended;
      const frames = live.frames();
      expect(frames[0]).toMatchObject({ data: '' });
      expect(frames[0].id).toEqual(expect.any(String));
      expect(live.messages()).toEqual([expect.objectContaining({ id, result: expect.objectContaining({ content: [{ type: 'text', text: String(id + 3) }] }) })]);
    }
    await sleep(50);
    expect(timeline).toEqual([]);
  });

  test('a longer call takes its lease after the delay, and the client receives nothing (not even headers) before it is held', async () => {
    const { served, sessionId, timeline } = await start({ leaseDelayMs: 20 });
    const live = await call(served, sessionId, 7, 'slow', {}, { progressToken: 'p7' });
    void live.ready.then(() => timeline.push('headers'));
    const progress = deferred();
    void live.waitForMessage((message) => 'method' in message && message.method === 'notifications/progress').then(() => {
      timeline.push('progress');
      progress.resolve();
    });
    await progress.promise;
    // The progress reached the client while the call still ran (it sleeps 150 ms after sending it).
    expect(live.isEnded).toBe(false);
    await live.ended;
    expect(live.messages().at(-1)).toMatchObject({ id: 7, result: { content: [{ text: 'done' }] } });
    await sleep(20);
    expect(timeline).toEqual(['acquire 7', 'acquired 7', 'headers', 'progress', 'release']);
  });

  test('leaseDelayMs: 0 takes the lease when the request starts and holds nothing back', async () => {
    const { served, sessionId, timeline } = await start({ leaseDelayMs: 0 });
    const live = await call(served, sessionId, 8, 'slow', {}, { progressToken: 'p8' });
    void live.ready.then(() => timeline.push('headers'));
    await live.ended;
    await sleep(20);
    // Headers (with the priming event) went out without waiting for the lease's round trip.
    expect(timeline.indexOf('headers')).toBeLessThan(timeline.indexOf('acquired 8'));
    expect(timeline.filter((entry) => entry.startsWith('acquire '))).toEqual(['acquire 8']);
  });

  test('a handler that closes its SSE stream before the lease is due gets it taken first: the retry hint carries an id', async () => {
    const { served, sessionId, timeline } = await start({ leaseDelayMs: 1000 });
    const live = await call(served, sessionId, 9, 'closes');
    void live.ready.then(() => timeline.push('headers'));
    await live.ended;
    expect(timeline.slice(0, 3)).toEqual(['acquire 9', 'acquired 9', 'headers']);
    const frames = live.frames();
    expect(frames.at(-1)).toMatchObject({ retry: 50 });
    expect(frames.at(-1)!.id).toEqual(frames[0].id);
    // The client resumes from that id and gets the result.
    const resumed = await openLive(served, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), 'Last-Event-ID': frames.at(-1)!.id! } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages().at(-1)).toMatchObject({ id: 9, result: { content: [{ text: 'closed and done' }] } });
  });

  test('a drain before the lease is due takes it first: the client gets an id to resume from before its connection ends', async () => {
    const { served, sessionId, timeline } = await start({ leaseDelayMs: 5000 });
    const live = await call(served, sessionId, 10, 'slow');
    await sleep(30); // the call runs; nothing has reached the client
    expect(live.text()).toBe('');
    const closing = served.middleware.close({ drainTimeout: 50 });
    await live.ended;
    expect(timeline.slice(0, 2)).toEqual(['acquire 10', 'acquired 10']);
    const frames = live.frames();
    expect(frames[0].id).toEqual(expect.any(String));
    expect(frames.at(-1)).toMatchObject({ retry: expect.any(Number) });
    expect(frames.at(-1)!.id).toBeUndefined();
    await closing;
  });

  test('the option is checked', () => {
    expect(() => new LocalSessionManager({ leaseDelayMs: -1 })).toThrow(/leaseDelayMs must be a number of milliseconds, 0 or more/);
  });
});

describe('NeverSessionManager with streamLeases and leaseDelayMs (persisted 2026-07-28 replies)', () => {
  const track = closeAfterEach();
  const open: LiveResponse[] = [];
  afterEach(() => {
    for (const live of open.splice(0)) live.close();
  });

  function progressServer(): McpServer {
    const server = new McpServer({ name: 'lease-delay-stateless', version: '1.0.0' });
    server.tool('quick', {}, async (_args, ctx) => {
      await ctx.progress(1, 1);
      return { content: [{ type: 'text', text: 'quick done' }] };
    });
    server.tool('slow', {}, async (_args, ctx) => {
      await ctx.progress(1, 2);
      await sleep(200);
      return { content: [{ type: 'text', text: 'slow done' }] };
    });
    return server;
  }

  function post(served: Served, name: string, id: number): Promise<LiveResponse> {
    const params = { name, arguments: {}, _meta: { ...envelope(), progressToken: `p${id}` } };
    return openLive(served, { method: 'POST', headers: modernHeaders('tools/call', params), body: { jsonrpc: '2.0', id, method: 'tools/call', params }, waitForHeaders: false });
  }

  test('a quick reply takes no lease; a slow one delivers only once its lease is held, and another instance follows it to its end', async () => {
    const timeline: string[] = [];
    const eventStore = new InMemoryEventStore();
    const leases = new TimelineLeases(timeline);
    const a = track(await serve({ server: progressServer(), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore, streamLeases: leases }) }));
    const b = track(await serve({ server: progressServer(), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore, streamLeases: leases }) }));

    const quick = await post(a, 'quick', 1);
    open.push(quick);
    await quick.ended;
    expect(quick.messages().map((message) => ('method' in message ? message.method : `response ${String(message.id)}`))).toEqual(['notifications/progress', 'response 1']);
    await sleep(30);
    expect(timeline).toEqual([]);

    const slow = await post(a, 'slow', 2);
    open.push(slow);
    void slow.ready.then(() => timeline.push('headers'));
    await slow.waitForMessage((message) => 'method' in message && message.method === 'notifications/progress');
    expect(timeline).toEqual(['acquire 2', 'acquired 2', 'headers']);
    const progressId = slow.frames().find((frame) => frame.data?.includes('notifications/progress'))!.id!;
    slow.close();
    const resumed = await openLive(b, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': progressId } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages().at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'slow done' }] } });
  });

  test('the option is checked', () => {
    expect(() => new NeverSessionManager({ leaseDelayMs: Number.NaN })).toThrow(/leaseDelayMs must be a number of milliseconds, 0 or more/);
  });
});
