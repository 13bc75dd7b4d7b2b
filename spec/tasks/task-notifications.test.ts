/**
 * Task status pushed to clients instead of polled: `notifications/tasks` on a 2026-07-28 `subscriptions/listen`
 * stream that names `notifications.taskIds` (only the caller's tasks, bounded like resourceSubscriptions), from any
 * instance sharing the message bus and task store; a `tasks/update` or `tasks/cancel` served on one instance waking
 * the handler on the instance running it through the bus (store polling set far beyond the test's patience); and
 * `notifications/tasks/status` on the GET stream of the 2025-11-25 session that created a task (SDK v1 client).
 */
import type { IncomingMessage } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryMessageBus, InMemoryTaskStore } from '../../lib/index.js';
import { openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { envelope, META_SUBSCRIPTION_ID, modernBody, modernHeaders, sleep, waitUntil } from '../helpers/modern.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { errorOf, isTerminal, pollTask, resultOf, taskRequest, taskServer, WITH_TASKS } from './task-wire.js';

const track = closeAfterEach();
const lives: LiveResponse[] = [];
afterEach(() => {
  for (const live of lives.splice(0)) live.close();
});

/** The principal is the `X-User` header, so that a test can be two users. */
const principalOf = (req: IncomingMessage) => req.headers['x-user'] as string | undefined;
const as = (user: string) => ({ headers: { 'X-User': user } });

/** A store poll no test waits for: only a bus message can wake a handler in time. */
const NEVER_POLL = { storePollIntervalMs: 600_000 };

async function listen(port: number, id: string | number, notifications: Record<string, unknown>, user = 'ann'): Promise<LiveResponse> {
  const body = modernBody({ id, method: 'subscriptions/listen', params: { notifications }, meta: envelope({}, WITH_TASKS) });
  const live = await openLive({ port }, { method: 'POST', headers: { ...modernHeaders('subscriptions/listen', undefined), 'X-User': user }, body });
  lives.push(live);
  return live;
}

const taskNotifications = (live: LiveResponse) => live.messages().filter((message) => 'method' in message && message.method === 'notifications/tasks') as Array<{ params: any }>;
const acknowledgement = async (live: LiveResponse) => (await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/subscriptions/acknowledged')) as { params: any };

/** Two instances of one deployment: separate servers and middlewares sharing a bus and a task store. */
async function cluster(options: Parameters<typeof taskServer>[0] = {}) {
  const bus = new InMemoryMessageBus();
  const store = new InMemoryTaskStore();
  const a = taskServer({ ...options, store });
  const b = taskServer({ ...options, store });
  const servedA = track(await serve({ server: a.server, bus, principalOf }));
  const servedB = track(await serve({ server: b.server, bus, principalOf }));
  await Promise.all([servedA.middleware.ready(), servedB.middleware.ready()]);
  return { a: { ...a, port: servedA.port }, b: { ...b, port: servedB.port } };
}

describe('notifications/tasks on subscriptions/listen', () => {
  test('the caller\'s tasks are honoured, others ignored; each status change arrives as the task tasks/get returns', async () => {
    const fixture = taskServer();
    const { port } = track(await serve({ server: fixture.server, principalOf }));
    const mine = resultOf(await taskRequest(port, 'tools/call', { name: 'ask_two', arguments: {} }, as('ann')));
    const theirs = resultOf(await taskRequest(port, 'tools/call', { name: 'held', arguments: { label: 'bob' } }, as('bob')));
    expect([mine.resultType, theirs.resultType]).toEqual(['task', 'task']);
    await pollTask(port, mine.taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2, as('ann'));

    const live = await listen(port, 'watch-1', { taskIds: [mine.taskId, theirs.taskId, 'no-such-task', mine.taskId, 42] });
    expect((await acknowledgement(live)).params.notifications).toEqual({ taskIds: [mine.taskId] });

    // A partial answer changes no status: nothing is sent.
    await taskRequest(port, 'tasks/update', { taskId: mine.taskId, inputResponses: { a: { action: 'accept', content: { name: 'Ann' } } } }, as('ann'));
    await sleep(50);
    expect(taskNotifications(live)).toEqual([]);
    // The last answer puts it back to working (sent as the store has it when read: working, or already completed),
    // then it completes.
    await taskRequest(port, 'tasks/update', { taskId: mine.taskId, inputResponses: { b: { action: 'accept', content: { name: 'Bo' } } } }, as('ann'));
    await live.waitFor(() => taskNotifications(live).some((n) => n.params.status === 'completed'));
    const seen = taskNotifications(live);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    for (const n of seen) expect(['working', 'completed']).toContain(n.params.status);
    const completed = seen.at(-1)!.params;
    expect(completed).toEqual({
      ...resultOf(await taskRequest(port, 'tasks/get', { taskId: mine.taskId }, as('ann'))),
      resultType: undefined,
      _meta: { [META_SUBSCRIPTION_ID]: 'watch-1' },
    });
    expect(completed.result.content).toEqual([{ type: 'text', text: 'Ann & Bo' }]);
    // Bob's task ends too; Ann's stream never hears of it.
    fixture.gates.get('bob')!.open();
    await pollTask(port, theirs.taskId, isTerminal, as('bob'));
    await sleep(50);
    expect(taskNotifications(live).every((n) => n.params.taskId === mine.taskId)).toBe(true);
  });

  test('input_required comes with its inputRequests; a task that already ended is sent at once', async () => {
    const fixture = taskServer();
    const { port } = track(await serve({ server: fixture.server, principalOf }));
    const asking = resultOf(await taskRequest(port, 'tools/call', { name: 'input_in_task', arguments: { label: 'ask' } }, as('ann')));
    const ended = resultOf(await taskRequest(port, 'tools/call', { name: 'tool_error', arguments: {} }, as('ann')));
    await pollTask(port, ended.taskId, isTerminal, as('ann'));
    const live = await listen(port, 7, { taskIds: [asking.taskId, ended.taskId] });
    expect((await acknowledgement(live)).params.notifications.taskIds).toEqual([asking.taskId, ended.taskId]);
    await live.waitFor(() => taskNotifications(live).length >= 1);
    expect(taskNotifications(live)[0].params).toMatchObject({ taskId: ended.taskId, status: 'completed', result: { isError: true } });
    await waitUntil(() => fixture.gates.has('ask'), 'the handler to start');
    fixture.gates.get('ask')!.open();
    await live.waitFor(() => taskNotifications(live).length >= 2);
    expect(taskNotifications(live)[1].params).toMatchObject({
      taskId: asking.taskId,
      status: 'input_required',
      inputRequests: { color: { method: 'elicitation/create' } },
    });
    await taskRequest(port, 'tasks/cancel', { taskId: asking.taskId }, as('ann'));
    await live.waitFor(() => taskNotifications(live).length >= 3);
    expect(taskNotifications(live)[2].params).toMatchObject({ taskId: asking.taskId, status: 'cancelled' });
  });

  test('taskIds is bounded by maxListenFilterUris and maxListenFilterBytes (400 / -32602)', async () => {
    const fixture = taskServer();
    const { port } = track(await serve({ server: fixture.server, principalOf, maxListenFilterUris: 2, maxListenFilterBytes: 100 }));
    for (const taskIds of [['a', 'b', 'c'], ['x'.repeat(101)]]) {
      const live = await listen(port, 'too-many', { taskIds });
      await live.ended;
      expect(live.status).toBe(400);
      expect(JSON.parse(live.text())).toMatchObject({ id: 'too-many', error: { code: -32602, message: expect.stringContaining('notifications.taskIds') } });
    }
    // Within bounds, unknown ids are simply not honoured.
    const live = await listen(port, 'fine', { taskIds: ['a', 'b'] });
    expect((await acknowledgement(live)).params.notifications).toEqual({ taskIds: [] });
  });

  test('a server without tasks honours no taskIds', async () => {
    const { McpServer } = await import('../../lib/index.js');
    const plain = new McpServer({ name: 'no-tasks', version: '1.0.0' });
    plain.tool('t', { description: 't' }, () => ({ content: [] }));
    const { port } = track(await serve({ server: plain }));
    const live = await listen(port, 'none', { taskIds: ['a'] });
    expect((await acknowledgement(live)).params.notifications).toEqual({});
  });
});

describe('across instances sharing a message bus and a task store', () => {
  test('a task running on A, cancelled through B: B\'s listen stream hears of it and A\'s handler stops at once', async () => {
    const { a, b } = await cluster(NEVER_POLL);
    const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'held', arguments: { label: 'far' } }, as('ann')));
    await a.startedOf('far');
    const live = await listen(b.port, 'on-b', { taskIds: [created.taskId] });
    expect((await acknowledgement(live)).params.notifications.taskIds).toEqual([created.taskId]);
    expect(resultOf(await taskRequest(b.port, 'tasks/cancel', { taskId: created.taskId }, as('ann')))).toEqual({ resultType: 'complete' });
    await live.waitFor(() => taskNotifications(live).length >= 1);
    expect(taskNotifications(live)[0].params).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
    // Polling would take ten minutes: the bus woke the handler.
    await waitUntil(() => a.aborted.has('far') && a.server.tasks!.runningCount === 0, 'the handler on A to be aborted');
  });

  test('answers sent through B reach the handler on A through the bus; A\'s completion reaches a listen stream on B', async () => {
    const { a, b } = await cluster(NEVER_POLL);
    const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'ask_two', arguments: {} }, as('ann')));
    await pollTask(b.port, created.taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2, as('ann'));
    const live = await listen(b.port, 'answers', { taskIds: [created.taskId] });
    await acknowledgement(live);
    await taskRequest(b.port, 'tasks/update', { taskId: created.taskId, inputResponses: { a: { action: 'accept', content: { name: 'Ann' } } } }, as('ann'));
    await taskRequest(b.port, 'tasks/update', { taskId: created.taskId, inputResponses: { b: { action: 'accept', content: { name: 'Bob' } } } }, as('ann'));
    await live.waitFor(() => taskNotifications(live).some((n) => n.params.status === 'completed'));
    expect(taskNotifications(live).at(-1)!.params.result.content).toEqual([{ type: 'text', text: 'Ann & Bob' }]);
  });

  test('without a shared bus (the default), the handler still hears of a cancellation by polling the store', async () => {
    const store = new InMemoryTaskStore();
    const a = taskServer({ store, storePollIntervalMs: 20 });
    const b = taskServer({ store, storePollIntervalMs: 20 });
    const portA = track(await serve({ server: a.server })).port;
    const portB = track(await serve({ server: b.server })).port;
    const created = resultOf(await taskRequest(portA, 'tools/call', { name: 'held', arguments: { label: 'polled' } }));
    await a.startedOf('polled');
    await taskRequest(portB, 'tasks/cancel', { taskId: created.taskId });
    await waitUntil(() => a.aborted.has('polled'), 'the handler on A to be aborted by polling');
  });

  test('another principal cannot name the task on B either', async () => {
    const { a, b } = await cluster();
    const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'held', arguments: { label: 'private' } }, as('ann')));
    const live = await listen(b.port, 'bob', { taskIds: [created.taskId] }, 'bob');
    expect((await acknowledgement(live)).params.notifications).toEqual({ taskIds: [] });
    expect(errorOf(await taskRequest(b.port, 'tasks/get', { taskId: created.taskId }, as('bob'))).code).toBe(-32602);
    await taskRequest(a.port, 'tasks/cancel', { taskId: created.taskId }, as('ann'));
  });
});

describe('notifications/tasks/status to 2025-11-25 sessions', () => {
  async function connect(url: string) {
    const client = new Client({ name: 'task-status', version: '1.0.0' }, { capabilities: { tasks: { list: {}, cancel: {} } } });
    const statuses: any[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      statuses.push(notification.params);
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    track({ close: () => client.close() });
    await client.listTools();
    return { client, statuses };
  }

  test('the session that created a task gets its status changes on its GET stream; another session gets none', async () => {
    const fixture = taskServer();
    const served = track(await serve({ server: fixture.server }));
    const { client, statuses } = await connect(served.url);
    const other = await connect(served.url);
    const stream = client.experimental.tasks.callToolStream({ name: 'held', arguments: { label: 'session' } }, CallToolResultSchema);
    const first = await stream.next();
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    await fixture.startedOf('session');
    fixture.gates.get('session')!.open();
    for await (const message of stream) if (message.type === 'error') throw message.error;
    await waitUntil(() => statuses.some((status) => status.status === 'completed'), 'notifications/tasks/status completed');
    expect(statuses.at(-1)).toMatchObject({ taskId, status: 'completed', ttl: 3_600_000, pollInterval: 500 });
    expect(statuses.at(-1)).not.toHaveProperty('result');

    const cancelled = other.client.experimental.tasks.callToolStream({ name: 'held', arguments: { label: 'other' } }, CallToolResultSchema);
    const otherTask = ((await cancelled.next()).value as { task: { taskId: string } }).task.taskId;
    await other.client.experimental.tasks.cancelTask(otherTask);
    await waitUntil(() => other.statuses.some((status) => status.taskId === otherTask && status.status === 'cancelled'), 'the other session to hear of its cancellation');
    await sleep(50);
    expect(statuses.every((status) => status.taskId === taskId)).toBe(true);
    expect(other.statuses.every((status) => status.taskId === otherTask)).toBe(true);
  });

  test('a session on A hears of its task cancelled through another session copy on B (shared bus)', async () => {
    const bus = new InMemoryMessageBus();
    const store = new InMemoryTaskStore();
    const a = taskServer({ store, ...NEVER_POLL });
    const b = taskServer({ store, ...NEVER_POLL });
    const servedA = track(await serve({ server: a.server, bus }));
    const servedB = track(await serve({ server: b.server, bus }));
    await Promise.all([servedA.middleware.ready(), servedB.middleware.ready()]);
    const { client, statuses } = await connect(servedA.url);
    const stream = client.experimental.tasks.callToolStream({ name: 'held', arguments: { label: 'cross' } }, CallToolResultSchema);
    const taskId = ((await stream.next()).value as { task: { taskId: string } }).task.taskId;
    await a.startedOf('cross');
    // B serves a 2026-07-28 cancel of the same principal (none: no auth), as any instance may.
    await taskRequest(servedB.port, 'tasks/cancel', { taskId });
    await waitUntil(() => statuses.some((status) => status.taskId === taskId && status.status === 'cancelled'), 'the session on A to hear of it');
    await waitUntil(() => a.aborted.has('cross'), 'the handler on A to stop');
  });
});
