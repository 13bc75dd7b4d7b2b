/**
 * `RedisTaskStore` (`mcp-express/redis`) against a real Redis: the TaskStore contract, and two servers sharing
 * it (a task created on A is read, answered and cancelled through B; another completes on A while polled on B),
 * and with a RedisMessageBus as well (a cancel through B wakes the handler on A without polling; a listen stream on
 * B gets `notifications/tasks`).
 *
 * Redis at `redis://127.0.0.1:6379` (`REDIS_URL` overrides). Unreachable, the suites are skipped with a warning,
 * or fail when `REQUIRE_REDIS=1`. Every key of a run starts with a unique prefix and is deleted in afterAll.
 */
import { RedisMessageBus, RedisTaskStore } from '../../lib/redis/index.js';
import { describeTaskStoreContract } from '../../lib/testing/index.js';
import { describeWithRedis } from '../helpers/redis.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { sleep, waitUntil } from '../helpers/wire.js';
import { openLive } from '../helpers/http-helpers.js';
import { envelope, modernBody, modernHeaders } from '../helpers/modern.js';
import { isTerminal, pollTask, resultOf, taskRequest, taskServer, WITH_TASKS } from './task-wire.js';

describeWithRedis('the Redis task store suites', (redis) => {
  const { connect, runPrefix } = redis;
  // The client connects in beforeAll: read it at use, inside tests and hooks.
  const client = () => redis.client();

  // Redis expires keys on its own clock: the TTL check really waits (a 1 s TTL leaves 400 ms of slack per step).
  describeTaskStoreContract('RedisTaskStore', () => new RedisTaskStore(client(), { keyPrefix: `${runPrefix}contract:` }), {
    ttl: { ttlMs: 1000, create: () => new RedisTaskStore(client(), { keyPrefix: `${runPrefix}contract-ttl:` }), elapse: (ms) => sleep(ms) },
  });

  describe('two instances sharing a RedisTaskStore', () => {
    const track = closeAfterEach();

    async function instances() {
      // Each instance has its own Redis connection, as separate processes would.
      const options = { storePollIntervalMs: 20 };
      const a = taskServer({ ...options, store: new RedisTaskStore(await connect(), { keyPrefix: `${runPrefix}shared:` }) });
      const b = taskServer({ ...options, store: new RedisTaskStore(await connect(), { keyPrefix: `${runPrefix}shared:` }) });
      const servedA = track(await serve({ server: a.server }));
      const servedB = track(await serve({ server: b.server }));
      return { a: { ...a, port: servedA.port }, b: { ...b, port: servedB.port } };
    }

    test('a task created on A is read, updated with input and cancelled through B', async () => {
      const { a, b } = await instances();
      const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'ask_two', arguments: {} }));
      expect(created.resultType).toBe('task');
      // Durable create: B reads it at once.
      expect(resultOf(await taskRequest(b.port, 'tasks/get', { taskId: created.taskId })).taskId).toBe(created.taskId);
      const waiting = await pollTask(b.port, created.taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2);
      expect(waiting.status).toBe('input_required');
      await taskRequest(b.port, 'tasks/update', { taskId: created.taskId, inputResponses: { a: { action: 'accept', content: { name: 'From B' } } } });
      const partial = await pollTask(b.port, created.taskId, (task) => !('a' in (task.inputRequests ?? {})));
      expect(Object.keys(partial.inputRequests)).toEqual(['b']);
      expect(resultOf(await taskRequest(b.port, 'tasks/cancel', { taskId: created.taskId }))).toEqual({ resultType: 'complete' });
      expect(resultOf(await taskRequest(a.port, 'tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
      // A, which runs the handler, hears of it through the store and ends the execution.
      await waitUntil(() => a.server.tasks!.runningCount === 0, 'the execution on A to end');
    });

    test('a task answered through B completes on A while the client polls B', async () => {
      const { a, b } = await instances();
      const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'ask_two', arguments: {} }));
      await pollTask(b.port, created.taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2);
      await taskRequest(b.port, 'tasks/update', {
        taskId: created.taskId,
        inputResponses: { a: { action: 'accept', content: { name: 'Ann' } }, b: { action: 'accept', content: { name: 'Bob' } } },
      });
      const done = await pollTask(b.port, created.taskId, isTerminal);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Ann & Bob' }] } });
    });

    test('a held task on A completes while the client polls B, then a cancel through B is an empty ack', async () => {
      const { a, b } = await instances();
      const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'held', arguments: { label: 'poll-b' } }));
      expect(resultOf(await taskRequest(b.port, 'tasks/get', { taskId: created.taskId })).status).toBe('working');
      a.gates.get('poll-b')!.open();
      const done = await pollTask(b.port, created.taskId, isTerminal);
      expect(done.result.content).toEqual([{ type: 'text', text: 'released poll-b' }]);
      expect(resultOf(await taskRequest(b.port, 'tasks/cancel', { taskId: created.taskId }))).toEqual({ resultType: 'complete' });
    });

    test('with a RedisMessageBus: a cancel through B wakes the handler on A at once and reaches a listen stream on B', async () => {
      // No store polling within the test's patience: only the bus can wake A.
      const options = { storePollIntervalMs: 600_000 };
      const channelPrefix = `${runPrefix}bus:`;
      const a = taskServer({ ...options, store: new RedisTaskStore(await connect(), { keyPrefix: `${runPrefix}bus-tasks:` }) });
      const b = taskServer({ ...options, store: new RedisTaskStore(await connect(), { keyPrefix: `${runPrefix}bus-tasks:` }) });
      const busA = new RedisMessageBus(await connect(), { channelPrefix });
      const busB = new RedisMessageBus(await connect(), { channelPrefix });
      track({ close: () => busA.close() });
      track({ close: () => busB.close() });
      const servedA = track(await serve({ server: a.server, bus: busA }));
      const servedB = track(await serve({ server: b.server, bus: busB }));
      await Promise.all([servedA.middleware.ready(), servedB.middleware.ready()]);

      const created = resultOf(await taskRequest(servedA.port, 'tools/call', { name: 'held', arguments: { label: 'redis-bus' } }));
      await a.startedOf('redis-bus');
      const body = modernBody({ id: 'redis-listen', method: 'subscriptions/listen', params: { notifications: { taskIds: [created.taskId] } }, meta: envelope({}, WITH_TASKS) });
      const live = await openLive({ port: servedB.port }, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined), body });
      try {
        await live.waitFor((text) => text.includes('notifications/subscriptions/acknowledged'));
        await taskRequest(servedB.port, 'tasks/cancel', { taskId: created.taskId });
        await waitUntil(() => a.aborted.has('redis-bus'), 'the handler on A to be aborted through the bus');
        const notification: any = await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/tasks');
        expect(notification.params).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
      } finally {
        live.close();
      }
    });
  });
});
