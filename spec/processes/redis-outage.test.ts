/**
 * Issue 9: Redis stopped mid-traffic under two example processes. Requests that need Redis answer 503 with
 * Retry-After within the adapters' commandTimeoutMs (2000 ms) plus a margin, never 500, never a hang; a 2026-07-28
 * stateless call of a tool that needs no Redis keeps working; no process exits; once redis-server is back on the
 * same port, the service is back within seconds, the message bus included.
 */
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';
import { callTool, rawRequest, type Reply } from '../helpers/modern.js';
import { clientHeaders, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { describeWithRedisBinaries, startRedisServer, type RedisServerProcess } from '../helpers/redis-server.js';
import { assertExampleBuilt, killAll, startInstance, stopInstance, type ExampleInstance } from './instances.js';
import { endedWithin, newSession, oneTo, progressOf, startSlowCount, VERSION } from './slow-count-calls.js';

/** The adapters' default commandTimeoutMs, and what a request may take beyond it before it counts as a hang. */
const COMMAND_TIMEOUT_MS = 2000;
const MARGIN_MS = 3000;

describeWithRedisBinaries('Redis stopped mid-traffic (example processes)', () => {
  let redis: RedisServerProcess;
  const instances: ExampleInstance[] = [];
  const open: LiveResponse[] = [];

  beforeAll(async () => {
    assertExampleBuilt();
    redis = await startRedisServer();
    for (const name of ['A', 'B']) instances.push(await startInstance({ name, redisUrl: redis.url, keyPrefix: 'outage:', leaseTtlMs: 1000 }));
  }, 120_000);
  afterAll(async () => {
    for (const live of open.splice(0)) live.close();
    await Promise.all(instances.map((instance) => stopInstance(instance)));
    await killAll();
    await redis?.dispose();
  }, 60_000);

  /** A request must answer within the deadline plus the margin: a slower one fails the test as a hang. */
  const deadline = COMMAND_TIMEOUT_MS + MARGIN_MS;
  const initialize = (port: number) => rawRequest(port, 'POST', clientHeaders(VERSION), JSON.stringify(initializeRequest(VERSION, 'init')), deadline);
  const sum = (port: number, sessionId: string, id: number) =>
    rawRequest(port, 'POST', clientHeaders(VERSION, sessionId), JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sum', arguments: { a: id, b: 1 } } }), deadline);
  const statelessSum = (port: number, id: number) => callTool(port, 'sum', { a: id, b: 1 }, { id });

  /** A 503 with Retry-After and a JSON-RPC error body naming what to do. */
  const expectUnavailable = (reply: Reply, what: string) =>
    expect({ what, status: reply.status, retryAfter: reply.headers['retry-after'], error: reply.json?.error }).toEqual({
      what,
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      error: { code: -32000, message: expect.stringMatching(/try again/) },
    });

  test('503s while Redis is down, stateless calls keep working, no process exits, service back after Redis restarts', async () => {
    const [a, b] = instances;
    // Before the outage: a session A holds (and B, after one call there), and one only Redis knows besides A.
    const shared = await newSession(a.port);
    expect((await sum(b.port, shared, 1)).final).toMatchObject({ id: 1, result: { content: [{ text: '2' }] } });
    const onlyOnA = await newSession(a.port);

    // A call streaming on A while Redis stops: it goes on, its events live without ids once nothing can be stored.
    const streaming = await startSlowCount(a.port, shared, 7, 30, 100);
    open.push(streaming);
    await streaming.waitFor(() => progressOf(streaming.messages()).length >= 1, 10_000);

    // Traffic of both eras on both instances, four requests at a time, going on while Redis stops.
    const traffic: Array<{ kind: string; status: number; error?: string }> = [];
    let trafficOn = true;
    const loops = [0, 1, 2, 3].map(async (worker) => {
      for (let i = worker; trafficOn; i += 4) {
        const port = instances[Math.floor(i / 2) % 2].port;
        const [kind, request] = i % 2 === 0 ? ['stateless', statelessSum(port, 1000 + i)] : ['initialize', initialize(port)];
        try {
          const reply = await request;
          traffic.push({ kind, status: reply.status });
        } catch (error) {
          traffic.push({ kind, status: 0, error: String(error) });
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS + 500));
    trafficOn = false;
    await Promise.all(loops);

    // Every answer came in time; the session-era ones were 200 before the outage and 503 in it, never another 5xx.
    expect(traffic.filter((entry) => entry.status === 0)).toEqual([]);
    expect(traffic.filter((entry) => entry.kind === 'stateless' && entry.status !== 200)).toEqual([]);
    expect(traffic.filter((entry) => entry.status !== 200 && entry.status !== 503)).toEqual([]);
    expect(traffic.some((entry) => entry.kind === 'initialize' && entry.status === 503)).toBe(true);

    // The call that was streaming when Redis stopped ends with its result, every progress event once.
    await endedWithin(streaming, 30 * 100 + COMMAND_TIMEOUT_MS + MARGIN_MS, 'the call streaming while Redis stopped');
    expect(progressOf(streaming.messages())).toEqual(oneTo(30));
    expect(streaming.messages().at(-1)).toMatchObject({ id: 7, result: { content: [{ text: 'counted 30' }] } });

    // While Redis is down: a new session cannot be kept, a session no instance holds cannot be restored.
    expectUnavailable(await initialize(a.port), 'initialize on A');
    expectUnavailable(await initialize(b.port), 'initialize on B');
    expectUnavailable(await sum(b.port, onlyOnA, 2), 'tools/call on B in a session B never held');
    // A session the instance holds answers (its events go out without ids, as nothing can be stored), or says 503.
    const held = await sum(a.port, shared, 3);
    if (held.status === 200) expect(held.final).toMatchObject({ id: 3, result: { content: [{ text: '4' }] } });
    else expectUnavailable(held, 'tools/call on A in a session A holds');
    // The stateless era needs no Redis for a plain tool call.
    for (const instance of instances) expect((await statelessSum(instance.port, 4)).final).toMatchObject({ id: 4, result: { content: [{ text: '5' }] } });
    for (const instance of instances) expect([instance.name, instance.hasExited]).toEqual([instance.name, false]);

    // Redis comes back on the same port (empty: it keeps nothing on disk here); so does the service, on both.
    await redis.restart();
    for (const instance of instances) await waitForStatus(() => initialize(instance.port), 200, 15_000, `initialize on ${instance.name} after the restart`);
    const sessionId = await newSession(a.port);
    const call = await openLive(b, {
      method: 'POST',
      headers: clientHeaders(VERSION, sessionId),
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'sum', arguments: { a: 5, b: 1 } } },
      waitForHeaders: false,
    });
    open.push(call);
    await call.ended;
    expect(call.messages().at(-1)).toMatchObject({ id: 5, result: { content: [{ text: '6' }] } });
    // The event store writes again: the response has an event id to resume from.
    expect(call.frames().at(-1)!.id).toEqual(expect.any(String));
    // The bus again carries a change announced on A to the GET stream the client holds on B.
    const get = await openLive(b, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream' } });
    open.push(get);
    expect(get.status).toBe(200);
    // (A publish made while B's subscriber connection is still reconnecting is lost, as pub/sub goes: announce
    // again until one arrives.)
    const listChanged = (message: JsonRpcMessage) => 'method' in message && message.method === 'notifications/tools/list_changed';
    const until = Date.now() + 10_000;
    for (let attempt = 1; !get.messages().some(listChanged); attempt++) {
      if (Date.now() > until) throw new Error(`no list_changed reached the GET stream on B within 10 s after the restart; B's output:\n${b.output()}`);
      const trigger = await openLive(a, {
        method: 'POST',
        headers: clientHeaders(VERSION, sessionId),
        body: { jsonrpc: '2.0', id: `trigger-${attempt}`, method: 'tools/call', params: { name: 'test_trigger_tool_change', arguments: {} } },
        waitForHeaders: false,
      });
      open.push(trigger);
      await trigger.ended;
      expect(trigger.messages().at(-1)).toMatchObject({ result: { content: [{ text: 'Mutation triggered' }] } });
      await get.waitFor((text) => text.includes('notifications/tools/list_changed'), 1000).catch(() => undefined);
    }
    for (const instance of instances) expect([instance.name, instance.hasExited]).toEqual([instance.name, false]);
  }, 90_000);
});

async function waitForStatus(send: () => Promise<Reply>, status: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: Reply | undefined;
  while (Date.now() < deadline) {
    last = await send();
    if (last.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}: no ${status} within ${timeoutMs} ms; last answer ${last?.status} ${last?.text.slice(0, 300)}`);
}
