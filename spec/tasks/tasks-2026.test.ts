/**
 * The tasks extension on the 2026-07-28 wire (SEP-2663): negotiation, server-directed task creation, the flat
 * CreateTaskResult, tasks/get, tasks/update, tasks/cancel, errors, MRTR before a task, ctx.inputRequired inside
 * one, status messages, principal binding and a lost instance. Handlers are held by gates the test opens.
 */
import { InMemoryTaskStore } from '../../lib/index.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { FULL_CAPABILITIES } from '../helpers/modern.js';
import { errorOf, isTerminal, pollTask, resultOf, TASKS, taskRequest, taskServer, WITH_TASKS, type Fixture } from './task-wire.js';

const track = closeAfterEach();

async function start(fixture: Fixture = taskServer(), options: Record<string, unknown> = {}) {
  const served = track(await serve({ server: fixture.server, ...options }));
  return { ...fixture, port: served.port };
}

describe('negotiation', () => {
  test('server/discover advertises the extension under capabilities.extensions, not capabilities.tasks', async () => {
    const { port } = await start();
    const result = resultOf(await taskRequest(port, 'server/discover', {}));
    expect(result.capabilities.extensions[TASKS]).toEqual({});
    expect(result.capabilities.tasks).toBeUndefined();
  });

  test('tools/list shows each tool\'s task support as execution.taskSupport', async () => {
    const { port } = await start();
    const tools = resultOf(await taskRequest(port, 'tools/list', {})).tools;
    expect(tools.find((tool: any) => tool.name === 'held').execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((tool: any) => tool.name === 'required_quick').execution).toEqual({ taskSupport: 'required' });
    expect(tools.find((tool: any) => tool.name === 'plain').execution).toBeUndefined();
  });

  test('without the extension an optional tool runs synchronously, however slow', async () => {
    const fixture = await start();
    const reply = taskRequest(fixture.port, 'tools/call', { name: 'held', arguments: { label: 'sync' } }, { capabilities: FULL_CAPABILITIES });
    await fixture.startedOf('sync');
    fixture.gates.get('sync')!.open();
    const result = resultOf(await reply);
    expect(result.resultType).toBe('complete');
    expect(result.taskId).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'released sync' }]);
  });

  test('without the extension a required tool and every tasks method answer -32021 naming the extension', async () => {
    const { port } = await start();
    const refused = await taskRequest(port, 'tools/call', { name: 'required_quick', arguments: {} }, { capabilities: {} });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).code).toBe(-32021);
    expect(errorOf(refused).data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    for (const [method, params] of [['tasks/get', { taskId: 'x' }], ['tasks/update', { taskId: 'x', inputResponses: {} }], ['tasks/cancel', { taskId: 'x' }]] as const) {
      expect(errorOf(await taskRequest(port, method, params, { capabilities: {} })).code).toBe(-32021);
    }
  });

  test('a legacy task param never makes a plain tool a task', async () => {
    const { port } = await start();
    const result = resultOf(await taskRequest(port, 'tools/call', { name: 'plain', arguments: { name: 'x' }, task: { ttl: 60000 } }));
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, x!' }] });
    expect(result.taskId).toBeUndefined();
  });

  test('tasks/result and tasks/list were removed: -32601', async () => {
    const { port } = await start();
    expect(errorOf(await taskRequest(port, 'tasks/result', { taskId: 'x' })).code).toBe(-32601);
    expect(errorOf(await taskRequest(port, 'tasks/list', {})).code).toBe(-32601);
  });
});

describe('lifecycle', () => {
  test('a fast optional tool answers synchronously', async () => {
    const { port } = await start();
    const result = resultOf(await taskRequest(port, 'tools/call', { name: 'quick', arguments: {} }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'quick' }], resultType: 'complete' });
  });

  test('a slow optional tool becomes a task: flat CreateTaskResult (its progress message as statusMessage), readable at once, result inlined when done', async () => {
    const fixture = await start();
    const created = resultOf(await taskRequest(fixture.port, 'tools/call', { name: 'held', arguments: { label: 'one' } }));
    expect(created).toEqual({
      resultType: 'task',
      taskId: expect.any(String),
      status: 'working',
      statusMessage: 'holding one',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastUpdatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      ttlMs: 3_600_000,
      pollIntervalMs: 500,
    });
    const working = resultOf(await taskRequest(fixture.port, 'tasks/get', { taskId: created.taskId }));
    expect(working).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working', statusMessage: 'holding one' });
    expect(working.result).toBeUndefined();
    fixture.gates.get('one')!.open();
    const done = await pollTask(fixture.port, created.taskId, isTerminal);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'released one' }] } });
    expect(done.result._meta).toBeUndefined();
    expect(done.requestState).toBeUndefined();
  });

  test('a required tool that finishes at once is still a task, created completed', async () => {
    const { port } = await start();
    const created = resultOf(await taskRequest(port, 'tools/call', { name: 'required_quick', arguments: {} }));
    expect(created).toMatchObject({ resultType: 'task', status: 'completed' });
    expect(created.result).toBeUndefined();
    expect(resultOf(await taskRequest(port, 'tasks/get', { taskId: created.taskId })).result).toEqual({ content: [{ type: 'text', text: 'done at once' }] });
  });

  test('a tool error ends completed with isError; a JSON-RPC error ends failed with the error and no result', async () => {
    const { port } = await start();
    const toolError = resultOf(await taskRequest(port, 'tools/call', { name: 'tool_error', arguments: {} }));
    expect(resultOf(await taskRequest(port, 'tasks/get', { taskId: toolError.taskId }))).toMatchObject({ status: 'completed', result: { isError: true, content: [{ type: 'text', text: 'tool failed' }] } });
    const protocolError = resultOf(await taskRequest(port, 'tools/call', { name: 'protocol_error', arguments: {} }));
    const failed = resultOf(await taskRequest(port, 'tasks/get', { taskId: protocolError.taskId }));
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32602, message: 'bad input', data: { field: 'x' } } });
    expect(failed.result).toBeUndefined();
  });

  test('tasks/cancel acks empty, fires the handler\'s signal, ends cancelled; again on a finished task it acks the same', async () => {
    const fixture = await start();
    const created = resultOf(await taskRequest(fixture.port, 'tools/call', { name: 'held', arguments: { label: 'cancel-me' } }));
    expect(resultOf(await taskRequest(fixture.port, 'tasks/cancel', { taskId: created.taskId }))).toEqual({ resultType: 'complete' });
    expect(resultOf(await taskRequest(fixture.port, 'tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
    expect(fixture.aborted.has('cancel-me')).toBe(true);
    expect(resultOf(await taskRequest(fixture.port, 'tasks/cancel', { taskId: created.taskId }))).toEqual({ resultType: 'complete' });
    expect(fixture.server.tasks!.runningCount).toBe(0);
  });
});

describe('input', () => {
  test('input requests of one turn show together; a partial update leaves the other; the task then completes', async () => {
    const { port } = await start();
    const created = resultOf(await taskRequest(port, 'tools/call', { name: 'ask_two', arguments: {} }));
    expect(created.status).toBe('input_required');
    expect(created.inputRequests).toBeUndefined();
    const waiting = resultOf(await taskRequest(port, 'tasks/get', { taskId: created.taskId }));
    expect(Object.keys(waiting.inputRequests).sort()).toEqual(['a', 'b']);
    expect(waiting.inputRequests.a.method).toBe('elicitation/create');
    const ack = resultOf(await taskRequest(port, 'tasks/update', { taskId: created.taskId, inputResponses: { a: { action: 'accept', content: { name: 'Ann' } }, unknown: { action: 'accept' } } }));
    expect(ack).toEqual({ resultType: 'complete' });
    const partial = resultOf(await taskRequest(port, 'tasks/get', { taskId: created.taskId }));
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual(['b']);
    // A malformed answer is ignored: the request stays outstanding.
    await taskRequest(port, 'tasks/update', { taskId: created.taskId, inputResponses: { b: { action: 'maybe' } } });
    expect(Object.keys(resultOf(await taskRequest(port, 'tasks/get', { taskId: created.taskId })).inputRequests)).toEqual(['b']);
    await taskRequest(port, 'tasks/update', { taskId: created.taskId, inputResponses: { b: { action: 'accept', content: { name: 'Bob' } } } });
    const done = await pollTask(port, created.taskId, isTerminal);
    expect(done.result.content).toEqual([{ type: 'text', text: 'Ann & Bob' }]);
  });

  test('an MRTR round before the task is answered synchronously; the retry creates the task, without requestState', async () => {
    const { port } = await start();
    const round1 = resultOf(await taskRequest(port, 'tools/call', { name: 'mrtr_then_task', arguments: {} }));
    expect(round1.resultType).toBe('input_required');
    expect(round1.taskId).toBeUndefined();
    const round2 = resultOf(
      await taskRequest(port, 'tools/call', { name: 'mrtr_then_task', arguments: {}, inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } }, requestState: round1.requestState }),
    );
    expect(round2.resultType).toBe('task');
    expect(round2.requestState).toBeUndefined();
    const done = await pollTask(port, round2.taskId, isTerminal);
    expect(done.result.content[0].text).toBe('Hi Alice (state {"round":1})');
  });

  test('ctx.inputRequired inside a task becomes the task\'s input; the handler runs again with the answer and its state', async () => {
    const fixture = await start();
    const created = resultOf(await taskRequest(fixture.port, 'tools/call', { name: 'input_in_task', arguments: { label: 'in-task' } }));
    expect(created.status).toBe('working');
    fixture.gates.get('in-task')!.open();
    const waiting = await pollTask(fixture.port, created.taskId, (task) => task.status !== 'working');
    expect(Object.keys(waiting.inputRequests)).toEqual(['color']);
    await taskRequest(fixture.port, 'tasks/update', { taskId: created.taskId, inputResponses: { color: { action: 'accept', content: { color: 'blue' } } } });
    const done = await pollTask(fixture.port, created.taskId, isTerminal);
    expect(done.result.content[0].text).toBe('blue (asked)');
  });
});

describe('ids, principals and the store', () => {
  test('an unknown task id is -32602 for get, update and cancel', async () => {
    const { port } = await start();
    for (const [method, params] of [['tasks/get', { taskId: 'nope' }], ['tasks/update', { taskId: 'nope', inputResponses: {} }], ['tasks/cancel', { taskId: 'nope' }]] as const) {
      const reply = await taskRequest(port, method, params);
      expect(reply.status).toBe(400);
      expect(errorOf(reply).code).toBe(-32602);
    }
  });

  test('Mcp-Name must match the task id: -32020', async () => {
    const { port } = await start();
    const created = resultOf(await taskRequest(port, 'tools/call', { name: 'required_quick', arguments: {} }));
    const reply = await taskRequest(port, 'tasks/get', { taskId: created.taskId }, { headers: { 'Mcp-Name': 'another-id' } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  test('another principal gets the same -32602 as for an unknown id, for every method', async () => {
    const fixture = taskServer();
    const { port } = await start(fixture, { principalOf: (req: any) => req.headers['x-user'] });
    const as = (user: string) => ({ headers: { 'X-User': user } });
    const created = resultOf(await taskRequest(port, 'tools/call', { name: 'held', arguments: { label: 'mine' } }, as('alice')));
    for (const [method, params] of [['tasks/get', { taskId: created.taskId }], ['tasks/update', { taskId: created.taskId, inputResponses: {} }], ['tasks/cancel', { taskId: created.taskId }]] as const) {
      expect(errorOf(await taskRequest(port, method, params, as('mallory')))).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown task') });
    }
    expect(resultOf(await taskRequest(port, 'tasks/get', { taskId: created.taskId }, as('alice'))).status).toBe('working');
    fixture.gates.get('mine')!.open();
    await pollTask(port, created.taskId, isTerminal, as('alice'));
  });

  test('two servers sharing a store: a task started on one is read, answered and cancelled through the other', async () => {
    const store = new InMemoryTaskStore();
    const a = await start(taskServer({ store, storePollIntervalMs: 10 }));
    const b = await start(taskServer({ store, storePollIntervalMs: 10 }));
    const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'ask_two', arguments: {} }));
    await pollTask(b.port, created.taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2);
    await taskRequest(b.port, 'tasks/update', { taskId: created.taskId, inputResponses: { a: { action: 'accept', content: { name: 'A' } }, b: { action: 'accept', content: { name: 'B' } } } });
    expect((await pollTask(b.port, created.taskId, isTerminal)).result.content[0].text).toBe('A & B');
    const held = resultOf(await taskRequest(a.port, 'tools/call', { name: 'held', arguments: { label: 'remote-cancel' } }));
    await taskRequest(b.port, 'tasks/cancel', { taskId: held.taskId });
    await pollTask(a.port, held.taskId, isTerminal);
    // A polls the store and fires the handler's signal.
    const deadline = Date.now() + 5000;
    while (!a.aborted.has('remote-cancel') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(a.aborted.has('remote-cancel')).toBe(true);
  });

  test('when the instance running a task is lost, the task ends failed once its lease lapses', async () => {
    const store = new InMemoryTaskStore();
    const a = await start(taskServer({ store, leaseMs: 150 }));
    const b = await start(taskServer({ store, leaseMs: 150 }));
    const created = resultOf(await taskRequest(a.port, 'tools/call', { name: 'held', arguments: { label: 'lost' } }));
    a.server.tasks!.abandonRunning();
    const failed = await pollTask(b.port, created.taskId, isTerminal);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('was lost') } });
  });
});

test('WITH_TASKS declares elicitation too (the fixtures ask for it)', () => {
  expect(WITH_TASKS.elicitation).toEqual({});
});
