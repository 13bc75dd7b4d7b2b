/**
 * The experimental tasks of 2025-11-25 sessions, driven by the official SDK v1 client's experimental tasks API
 * (`client.experimental.tasks`): task-augmented tools/call, tasks/get, tasks/result, tasks/list, tasks/cancel.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { taskServer } from './task-wire.js';

const track = closeAfterEach();

async function connect() {
  const fixture = taskServer();
  const served = track(await serve({ server: fixture.server }));
  const client = new Client({ name: 'sdk-v1-tasks', version: '1.0.0' }, { capabilities: { tasks: { list: {}, cancel: {} } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  track({ close: () => client.close() });
  await client.listTools(); // the client learns which tools support tasks
  return { client, fixture };
}

test('initialize advertises tasks for tools/call to a 2025-11-25 client', async () => {
  const { client } = await connect();
  expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
});

test('callToolStream runs a task to completion and reads its result with tasks/result', async () => {
  const { client, fixture } = await connect();
  const seen: string[] = [];
  let result: any;
  let taskId: string | undefined;
  for await (const message of client.experimental.tasks.callToolStream({ name: 'held', arguments: { label: 'v1' } }, CallToolResultSchema)) {
    seen.push(message.type);
    if (message.type === 'taskCreated') {
      taskId = message.task.taskId;
      expect(message.task).toMatchObject({ status: 'working', ttl: 3_600_000, pollInterval: 500 });
      await fixture.startedOf('v1');
      fixture.gates.get('v1')!.open();
    }
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(seen[0]).toBe('taskCreated');
  expect(seen[seen.length - 1]).toBe('result');
  expect(result.content).toEqual([{ type: 'text', text: 'released v1' }]);
  expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId });
  // tasks/result again, and tasks/get, on the finished task.
  expect((await client.experimental.tasks.getTaskResult(taskId!, CallToolResultSchema)).content).toEqual(result.content);
  expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('completed');
});

test('a required tool cannot be called without a task; tasks/list lists the session\'s tasks; tasks/cancel cancels', async () => {
  const { client, fixture } = await connect();
  await expect(client.callTool({ name: 'required_quick', arguments: {} })).rejects.toThrow(/requires task-based execution/);
  const stream = client.experimental.tasks.callToolStream({ name: 'held', arguments: { label: 'to-cancel' } }, CallToolResultSchema);
  const first = await stream.next();
  expect(first.value?.type).toBe('taskCreated');
  const taskId = (first.value as { task: { taskId: string } }).task.taskId;
  const listed = await client.experimental.tasks.listTasks();
  expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);
  const cancelled = await client.experimental.tasks.cancelTask(taskId);
  expect(cancelled.status).toBe('cancelled');
  expect(fixture.aborted.has('to-cancel')).toBe(true);
  await stream.return(undefined);
});
