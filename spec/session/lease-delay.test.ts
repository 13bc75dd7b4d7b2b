/**
 * Stream leases are taken only for requests that run longer than `leaseDelayMs`: a call that completes sooner takes
 * none (no lease commands). Until a stream's lease is held it delivers nothing to the client, so a client never
 * holds an id of a stream that no instance could tell running from lost.
 */
import { z } from 'zod';
import { InMemoryEventStore, InMemoryMessageBus, InMemorySessionStore, InMemoryStreamLeases, LocalSessionManager, McpServer, NeverSessionManager, type StreamLeaseInfo } from '../../lib/index.js';
import { LeaseKeeper } from '../../lib/session/lease-keeper.js';
import { clientHeaders, closeLiveAfterEach, deferred, initializeRequest, type LiveResponse, openLive } from '../helpers/http-helpers.js';
import { keptStream } from '../helpers/kept-stream.js';
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
    // Its completion (the cancel completes the stream) delivers, once stored; the keeper does not.
    expect(stream.holding).toBe(true);
    await sleep(80);
    expect(timeline).toEqual([]);
    keeper.stop();
  });

  test('after stop() nothing is held or leased any more', async () => {
    const timeline: string[] = [];
    const keeper = new LeaseKeeper({ ...options, delayMs: 20, leases: new TimelineLeases(timeline) });
    const running = keptStream('s/5');
    keeper.take(running, 5);
    keeper.stop();
    const late = keptStream('s/6');
    keeper.take(late, 6);
    expect(late.holding).toBe(false);
    await sleep(80);
    expect(timeline).toEqual([]);
  });

  test('an acquire that throws at once is reported like one that rejects, and the stream delivers', async () => {
    const errors: unknown[] = [];
    const leases = new InMemoryStreamLeases();
    leases.acquire = () => {
      throw new Error('lease store broken');
    };
    const keeper = new LeaseKeeper({ ...options, delayMs: 10, leases, onError: (error) => errors.push(error) });
    const stream = keptStream('s/7');
    keeper.take(stream, 7);
    await until(() => !stream.holding);
    expect(errors).toEqual([expect.objectContaining({ message: 'lease store broken' })]);
    keeper.stop();
  });
});

describe('LocalSessionManager with streamLeases and leaseDelayMs', () => {
  const track = closeAfterEach();
  const open = closeLiveAfterEach();

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

  async function start(options: { leaseDelayMs?: number } = {}): Promise<{ served: Served; sessionId: string; timeline: string[]; leases: TimelineLeases }> {
    const timeline: string[] = [];
    const leases = new TimelineLeases(timeline);
    const served = await serve({
      server: toolServer(),
      sseKeepAlive: 0,
      sessionManager: new LocalSessionManager({ eventStore: new InMemoryEventStore(), streamLeases: leases, ...options }),
    });
    track(served);
    const init = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
    await init.ended;
    return { served, sessionId: init.headers['mcp-session-id'] as string, timeline, leases };
  }

  async function call(served: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<LiveResponse> {
    const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
    const live = await openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', id, method: 'tools/call', params }, waitForHeaders: false });
    open.push(live);
    return live;
  }

  test('a call that completes within the delay takes no lease and is answered as before (priming event, then the response)', async () => {
    // A delay no quick call comes near, even on a loaded machine (the default's 10 ms is what the bench measures).
    const { served, sessionId, timeline } = await start({ leaseDelayMs: 1000 });
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
    const { served, sessionId, timeline, leases } = await start({ leaseDelayMs: 0 });
    const gate = deferred();
    leases.gate = gate.promise; // the acquire does not complete until the client has its first bytes
    const live = await call(served, sessionId, 8, 'slow', {}, { progressToken: 'p8' });
    await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/progress');
    expect(timeline).toEqual(['acquire 8']);
    expect(live.frames()[0].id).toEqual(expect.any(String));
    gate.resolve();
    await live.ended;
    expect(live.messages().at(-1)).toMatchObject({ id: 8, result: { content: [{ text: 'done' }] } });
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
    expect(() => new LocalSessionManager({ leaseDelayMs: -1 })).toThrow(/leaseDelayMs must be a number of milliseconds from 0 to 60000/);
  });
});

/** An event store whose writes each take `delayMs` and are applied one after another (no `keepsWriteOrder`). */
class SlowEventStore extends InMemoryEventStore {
  override readonly keepsWriteOrder = false;
  constructor(
    private readonly delayMs: number,
    private readonly timeline: string[] = [],
  ) {
    super();
  }
  override async storeEvent(...args: Parameters<InMemoryEventStore['storeEvent']>): Promise<string> {
    await sleep(this.delayMs);
    const id = await super.storeEvent(...args);
    const message = args[1].message as { id?: unknown; method?: string } | undefined;
    if (message && !('method' in message)) this.timeline.push(`stored response ${String(message.id)}`);
    return id;
  }
}

describe('two LocalSessionManagers sharing stores and leases, with a lease delay', () => {
  const track = closeAfterEach();
  const open = closeLiveAfterEach();

  function toolServer(): McpServer {
    const server = new McpServer({ name: 'lease-delay-shared', version: '1.0.0' });
    server.tool('close_then_finish', {}, async (_args, ctx) => {
      await ctx.progress(1, 1);
      ctx.closeSSEStream(0);
      return { content: [{ type: 'text', text: 'finished after the close' }] };
    });
    server.tool('chatty', { inputSchema: { n: z.number().int() } }, async ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) await ctx.progress(i, n, 'x'.repeat(1000));
      return { content: [{ type: 'text', text: `sent ${n}` }] };
    });
    server.tool('wait', {}, async () => {
      await sleep(300);
      return { content: [{ type: 'text', text: 'waited' }] };
    });
    return server;
  }

  async function deployment(eventStore: InMemoryEventStore, options: { leaseDelayMs?: number; maxBufferedBytesPerStream?: number } = {}) {
    const timeline: string[] = [];
    const shared = { bus: new InMemoryMessageBus(), sessionStore: new InMemorySessionStore(), leases: new TimelineLeases(timeline) };
    const instance = async () => {
      const manager = new LocalSessionManager({ eventStore, sessionStore: shared.sessionStore, streamLeases: shared.leases, remoteFollowInterval: 20, leaseDelayMs: options.leaseDelayMs });
      const served = track(await serve({ server: toolServer(), sseKeepAlive: 0, bus: shared.bus, sessionManager: manager, maxBufferedBytesPerStream: options.maxBufferedBytesPerStream }));
      await manager.ready();
      return served;
    };
    const a = await instance();
    const b = await instance();
    const init = await openLive(a, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
    await init.ended;
    return { a, b, sessionId: init.headers['mcp-session-id'] as string, timeline };
  }

  function call(served: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}): Promise<LiveResponse> {
    const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p${id}` } } };
    return openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body, waitForHeaders: false }).then((live) => {
      open.push(live);
      return live;
    });
  }

  test('a handler that closes its stream and finishes at once: the lease is still taken, and a resume elsewhere gets the response', async () => {
    // Every store write takes 60 ms: when the close hands the client its ids, the response is not stored yet.
    const { a, b, sessionId, timeline } = await deployment(new SlowEventStore(60), { leaseDelayMs: 1000 });
    const live = await call(a, sessionId, 1, 'close_then_finish');
    await live.ended;
    const lastId = live.frames().filter((frame) => frame.id !== undefined).at(-1)!.id!;
    expect(timeline).toContain('acquired 1');
    const resumed = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), 'Last-Event-ID': lastId } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages().at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'finished after the close' }] } });
  });

  test('a handler that sends a lot before its lease is due gets the lease early; the client gets every message', async () => {
    const { a, sessionId, timeline } = await deployment(new InMemoryEventStore(), { leaseDelayMs: 5000, maxBufferedBytesPerStream: 16_384 });
    const started = Date.now();
    const live = await call(a, sessionId, 2, 'chatty', { n: 300 });
    await live.ended;
    // Leased once half the connection's budget was held, long before the 5 s delay.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(timeline.slice(0, 2)).toEqual(['acquire 2', 'acquired 2']);
    // More than the connection's budget came at once: it ended with a retry hint (a slow reader, with a store),
    // and the client resumes from the last id it got.
    let messages = live.messages();
    const last = messages.at(-1);
    if (!last || 'method' in last || last.id !== 2) {
      const lastId = live.frames().filter((frame) => frame.id !== undefined).at(-1)!.id!;
      const resumed = await openLive(a, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), 'Last-Event-ID': lastId } });
      open.push(resumed);
      await resumed.ended;
      messages = [...messages, ...resumed.messages()];
    }
    const progress = messages.flatMap((message) => ('method' in message && message.method === 'notifications/progress' ? [(message.params as { progress: number }).progress] : []));
    expect(progress).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ text: 'sent 300' }] } });
  });

  test('a refused request (its id is in use) delivers only once its refusal is stored', async () => {
    const storeTimeline: string[] = [];
    const { a, sessionId } = await deployment(new SlowEventStore(60, storeTimeline));
    const running = await call(a, sessionId, 3, 'wait');
    await running.waitFor((text) => text.includes('id:'));
    const refused = await call(a, sessionId, 3, 'wait');
    void refused.ready.then(() => storeTimeline.push('refusal headers'));
    await refused.ended;
    expect(refused.messages()).toEqual([expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32600 }) })]);
    expect(storeTimeline.indexOf('stored response 3')).toBeLessThan(storeTimeline.indexOf('refusal headers'));
    await running.ended;
  });
});

describe('NeverSessionManager with streamLeases and leaseDelayMs (persisted 2026-07-28 replies)', () => {
  const track = closeAfterEach();
  const open = closeLiveAfterEach();

  function progressServer(): McpServer {
    const server = new McpServer({ name: 'lease-delay-stateless', version: '1.0.0' });
    server.tool('quick', {}, async (_args, ctx) => {
      await ctx.progress(1, 1);
      return { content: [{ type: 'text', text: 'quick done' }] };
    });
    server.tool('slow', {}, async (_args, ctx) => {
      await ctx.progress(1, 2);
      await sleep(500);
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
    // 150 ms: far above a quick call even on a loaded machine, well below the slow one's 500 ms.
    const manager = () => new NeverSessionManager({ eventStore, streamLeases: leases, leaseDelayMs: 150 });
    const a = track(await serve({ server: progressServer(), sseKeepAlive: 0, sessionManager: manager() }));
    const b = track(await serve({ server: progressServer(), sseKeepAlive: 0, sessionManager: manager() }));

    const quick = await post(a, 'quick', 1);
    open.push(quick);
    await quick.ended;
    expect(quick.messages().map((message) => ('method' in message ? message.method : `response ${String(message.id)}`))).toEqual(['notifications/progress', 'response 1']);
    await sleep(30);
    expect(timeline).toEqual([]);

    const slow = await post(a, 'slow', 2);
    open.push(slow);
    void slow.waitFor((text) => text.includes('id:')).then(() => timeline.push('first event'));
    await slow.waitForMessage((message) => 'method' in message && message.method === 'notifications/progress');
    // The reply's headers may go out before the lease (a stateless reply commits to SSE after a short wait), but
    // no event: the first one, the priming event, comes once the lease is held.
    expect(timeline).toEqual(['acquire 2', 'acquired 2', 'first event']);
    expect(slow.frames()[0].id).toEqual(expect.any(String));
    const progressId = slow.frames().find((frame) => frame.data?.includes('notifications/progress'))!.id!;
    slow.close();
    const resumed = await openLive(b, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': progressId } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages().at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'slow done' }] } });
  });

  test('the option is checked', () => {
    expect(() => new NeverSessionManager({ leaseDelayMs: Number.NaN })).toThrow(/leaseDelayMs must be a number of milliseconds from 0 to 60000/);
  });
});
