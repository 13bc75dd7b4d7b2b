/**
 * Issue 9: an official SDK v1 client session whose HTTP requests rotate over three instances, first three
 * in-process instances sharing in-memory stores and a bus, then three processes of the built example sharing Redis,
 * then the same on a local 3-master Redis Cluster (REDIS_CLUSTER_NODES).
 */
import { z } from 'zod';
import { describeWithRedis, redisUrl } from '../helpers/redis.js';
import { describeWithRedisCluster } from '../helpers/redis-cluster.js';
import { sharedStores, startInstance as startInProcess, type Instance, type Journal } from '../cluster/fixture.js';
import { callTool } from '../helpers/modern.js';
import { clientHeaders, openLive } from '../helpers/http-helpers.js';
import { startInstance, usePool, type ExampleInstance } from './instances.js';
import { runRotatingSession } from './rotating-client.js';

describe('in-process instances', () => {
  let instances: Instance[] = [];
  beforeEach(async () => {
    const journal: Journal = { aborted: [], ran: [] };
    const shared = sharedStores();
    instances = [await startInProcess('A', shared, journal), await startInProcess('B', shared, journal), await startInProcess('C', shared, journal)];
    for (const instance of instances) {
      instance.server.tool('sum', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    }
  });
  afterEach(async () => {
    for (const instance of instances.splice(0)) await instance.close();
  });

  test('an SDK v1 session rotating over three instances: calls, progress, elicitation, list_changed, DELETE', async () => {
    await runRotatingSession({
      ports: instances.map((instance) => instance.port),
      sumTool: 'sum',
      elicitation: { tool: 'ask', arguments: {}, resultContains: 'hello Ada from' },
      triggerToolListChanged: async (port) => instances.find((instance) => instance.port === port)!.server.notifyToolsListChanged(),
    });
  });
});

/** The rotating session against example processes: their sum and elicitation fixtures, and the tool-change trigger. */
function runOnExample(instances: readonly ExampleInstance[]): Promise<void> {
  return runRotatingSession({
    ports: instances.map((instance) => instance.port),
    sumTool: 'sum',
    elicitation: { tool: 'test_elicitation', arguments: { message: 'Who are you?' }, resultContains: 'User response: action=accept, content={"name":"Ada","username":"ada"' },
    triggerToolListChanged: async (port, sessionId, protocolVersion) => {
      const trigger = await openLive(
        { port },
        {
          method: 'POST',
          headers: clientHeaders(protocolVersion, sessionId),
          body: { jsonrpc: '2.0', id: 'trigger', method: 'tools/call', params: { name: 'test_trigger_tool_change', arguments: {} } },
          waitForHeaders: false,
        },
      );
      await trigger.ended;
      expect(trigger.messages().at(-1)).toMatchObject({ id: 'trigger', result: { content: [{ text: 'Mutation triggered' }] } });
    },
  });
}

describeWithRedis('the example as three processes sharing Redis', (redis) => {
  const { pool: instances } = usePool(['A', 'B', 'C'], (name) => startInstance({ name, redisUrl, keyPrefix: redis.runPrefix }));

  test('an SDK v1 session rotating over three processes: calls, progress, elicitation, list_changed, DELETE', async () => {
    await runOnExample(instances);
    for (const instance of instances) expect([instance.name, instance.hasExited]).toEqual([instance.name, false]);
  });

  test('after SIGTERM, new requests of both eras get 503 while a call still runs, and the process exits 0', async () => {
    const [, , c] = instances;
    const init = await openLive(c, {
      method: 'POST',
      headers: clientHeaders('2025-11-25'),
      body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'drain', version: '1' } } },
      waitForHeaders: false,
    });
    await init.ended;
    const sessionId = init.headers['mcp-session-id'] as string;
    const running = await openLive(c, {
      method: 'POST',
      headers: clientHeaders('2025-11-25', sessionId),
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow_count', arguments: { n: 40, intervalMs: 50 }, _meta: { progressToken: 'p' } } },
      waitForHeaders: false,
    });
    await running.waitFor((text) => text.includes('notifications/progress'), 10_000);
    c.signal('SIGTERM');
    await waitForOutput(c, 'SIGTERM: draining');
    const sessionEra = await openLive(c, { method: 'POST', headers: clientHeaders('2025-11-25', sessionId), body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    await sessionEra.ended;
    expect(sessionEra.status).toBe(503);
    expect(sessionEra.headers['retry-after']).toBe('1');
    expect(JSON.parse(sessionEra.text())).toMatchObject({ id: 2, error: { code: -32000 } });
    const modern = await callTool(c.port, 'sum', { a: 1, b: 2 }, { id: 3 });
    expect(modern.status).toBe(503);
    expect(modern.headers['retry-after']).toBe('1');
    expect(modern.json).toMatchObject({ id: 3, error: { code: -32000 } });
    expect(await c.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

async function waitForOutput(instance: ExampleInstance, line: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!instance.output().includes(line)) {
    if (Date.now() > deadline) throw new Error(`instance ${instance.name} did not print "${line}"; output:\n${instance.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describeWithRedisCluster('the example as three processes on a Redis Cluster (REDIS_CLUSTER_NODES)', (cluster) => {
  const keyPrefix = `mcp-express-test:${Date.now()}-${Math.random().toString(36).slice(2)}:`;
  const nodes = () =>
    cluster()
      .rootNodes.map((node) => new URL(node.url).host)
      .join(',');
  const { pool: instances } = usePool(['A', 'B', 'C'], (name) => startInstance({ name, redisUrl, redisClusterNodes: nodes(), keyPrefix }));

  test('an SDK v1 session rotating over three processes: calls, progress, elicitation, list_changed, DELETE', async () => {
    await runOnExample(instances);
    for (const instance of instances) expect([instance.name, instance.hasExited]).toEqual([instance.name, false]);
  });
});
