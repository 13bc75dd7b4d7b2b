/**
 * `leaseDelayMs` on the Redis deployment: a call that completes within the delay sends no lease command at all (its
 * one Redis command is the stored response); a longer one takes and releases its lease, and a resume of it on
 * another instance follows it to its result.
 */
import { z } from 'zod';
import { LocalSessionManager, McpServer } from '../../lib/index.js';
import { RedisEventStore, RedisSessionStore, RedisStreamLeases } from '../../lib/redis/index.js';
import { clientHeaders, closeLiveAfterEach, initializeRequest, type LiveResponse, openLive } from '../helpers/http-helpers.js';
import { describeWithRedis } from '../helpers/redis.js';
import { closeAfterEach, serve, type Served } from '../helpers/serve.js';
import { ACCEPT_BOTH, sleep } from '../helpers/wire.js';

const VERSION = '2025-11-25';

function toolServer(): McpServer {
  const server = new McpServer({ name: 'lease-delay-redis', version: '1.0.0' });
  server.tool('sum', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('slow', {}, async () => {
    await sleep(1200);
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  return server;
}

describeWithRedis('leaseDelayMs with the Redis stores and leases', (redis) => {
  const track = closeAfterEach();
  const open = closeLiveAfterEach();

  /**
   * Every command a client sends Redis that touches a key under `prefix`, as MONITOR shows it (from the command's
   * name on; the commands a script runs inside Redis, shown as from `lua`, are left out).
   */
  async function watchCommands(prefix: string): Promise<string[]> {
    const seen: string[] = [];
    const monitor = await redis.connect();
    await monitor.monitor((line) => {
      const name = line.indexOf('"');
      if (line.includes(prefix) && !line.slice(0, name).includes('lua]')) seen.push(line.slice(name));
    });
    return seen;
  }

  /** Waits until MONITOR has shown `count` commands (it reports them asynchronously), or 2 s. */
  async function settle(seen: string[], count: number): Promise<void> {
    for (let waited = 0; seen.length < count && waited < 2000; waited += 10) await sleep(10);
    await sleep(50);
  }

  async function instance(prefix: string, leaseDelayMs?: number): Promise<Served> {
    const client = redis.client();
    const served = await serve({
      server: toolServer(),
      sseKeepAlive: 0,
      sessionManager: new LocalSessionManager({
        eventStore: new RedisEventStore(client, { keyPrefix: `${prefix}events:` }),
        sessionStore: new RedisSessionStore(client, { keyPrefix: `${prefix}sessions:` }),
        streamLeases: new RedisStreamLeases(client, { keyPrefix: `${prefix}lease:` }),
        leaseDelayMs,
      }),
    });
    track(served);
    return served;
  }

  async function session(served: Served): Promise<string> {
    const live = await openLive(served, { method: 'POST', headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, body: initializeRequest(VERSION, 0) });
    await live.ended;
    return live.headers['mcp-session-id'] as string;
  }

  async function call(served: Served, sessionId: string, id: number, name: string, args: Record<string, unknown> = {}): Promise<LiveResponse> {
    const live = await openLive(served, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, waitForHeaders: false });
    open.push(live);
    return live;
  }

  async function leaseKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const batch of redis.client().scanIterator({ MATCH: `${prefix}lease:*`, COUNT: 200 })) keys.push(...batch);
    return keys.sort();
  }

  test('calls that complete within the delay send no lease command and leave no lease key: one command each, the stored response', async () => {
    const prefix = redis.prefix('fast');
    // A delay no quick call comes near, even on a loaded machine.
    const served = await instance(prefix, 1000);
    const sessionId = await session(served);
    const seen = await watchCommands(prefix);
    for (let id = 1; id <= 10; id++) {
      const live = await call(served, sessionId, id, 'sum', { a: id, b: 1 });
      await live.ended;
      expect(live.messages()).toEqual([expect.objectContaining({ id, result: expect.objectContaining({ content: [{ type: 'text', text: String(id + 1) }] }) })]);
    }
    await settle(seen, 10);
    expect(seen.filter((line) => line.includes(`${prefix}lease:`))).toEqual([]);
    expect(seen.filter((line) => line.includes(`${prefix}events:`))).toHaveLength(10);
    expect(await leaseKeys(prefix)).toEqual([]);
    // The responses are in the store: a resume from the last call's priming event replays it.
    const last = await call(served, sessionId, 11, 'sum', { a: 5, b: 6 });
    await last.ended;
    const resumed = await openLive(served, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), 'Last-Event-ID': last.frames()[0].id! } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages()).toEqual([expect.objectContaining({ id: 11, result: expect.objectContaining({ content: [{ type: 'text', text: '11' }] }) })]);
  });

  test('a longer call takes its lease after the delay, delivers only then, and a resume on another instance follows it to its result', async () => {
    const prefix = redis.prefix('slow');
    const a = await instance(prefix, 600);
    const b = await instance(prefix);
    const sessionId = await session(a);
    const seen = await watchCommands(`${prefix}lease:`);
    const live = await call(a, sessionId, 21, 'slow');
    await sleep(50);
    // Before the delay: no lease in Redis, and nothing has reached the client.
    expect(await leaseKeys(prefix)).toEqual([]);
    expect(live.text()).toBe('');
    await live.waitFor((text) => text.includes('id:'));
    expect(await leaseKeys(prefix)).toHaveLength(2); // the lease and its info
    live.close();
    const resumed = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), 'Last-Event-ID': live.frames()[0].id! } });
    open.push(resumed);
    await resumed.ended;
    expect(resumed.messages().at(-1)).toMatchObject({ id: 21, result: { content: [{ text: 'slow done' }] } });
    await settle(seen, 2);
    // Instance a: one script to acquire, one to release (the resume on b reads the lease with MULTI/HGETALL/EXISTS).
    // A script goes by its SHA1 and, when Redis does not know it yet (NOSCRIPT), again as text: count operations,
    // told apart by their arguments (the acquire has three, the request id among them; the release one).
    const scripts = seen.filter((line) => /^"(evalsha|eval)"/i.test(line));
    const argumentsOf = (line: string) => (line.match(/"(?:[^"\\]|\\.)*"/g) ?? []).length - 5; // command, script, key count, 2 keys
    const acquires = scripts.filter((line) => argumentsOf(line) === 3 && line.includes('"21"'));
    const releases = scripts.filter((line) => argumentsOf(line) === 1);
    expect(acquires.length).toBeGreaterThanOrEqual(1);
    expect(acquires.length).toBeLessThanOrEqual(2);
    expect(releases.length).toBeGreaterThanOrEqual(1);
    expect(releases.length).toBeLessThanOrEqual(2);
    expect(acquires.length + releases.length).toBe(scripts.length);
    // Each operation was applied once (a NOSCRIPT attempt does nothing): one acquire and one release by SHA1 or text.
    expect(new Set(acquires.map((line) => line.slice(line.indexOf('"2"')))).size).toBe(1);
    // The lease key is gone; its released record stays a while.
    expect((await leaseKeys(prefix)).map((key) => key.slice(key.lastIndexOf(':')))).toEqual([':info']);
  });
});
