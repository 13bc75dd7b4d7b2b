/**
 * Helpers for tasks extension specs: 2026-07-28 requests that opt in to the extension (or not), with `Mcp-Name`
 * set to the task id for tasks/* methods, and a small tool fixture set whose handlers the test releases.
 */
import { z } from 'zod';
import { ErrorCode, McpError, McpServer, type TaskOptions } from '../../lib/index.js';
import { envelope, FULL_CAPABILITIES, modern, type Reply } from '../helpers/modern.js';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const WITH_TASKS = { ...FULL_CAPABILITIES, extensions: { [TASKS]: {} } };

/** A 2026-07-28 request; `capabilities` defaults to one that opts in to tasks. */
export function taskRequest(port: number, method: string, params: Record<string, unknown>, options: { capabilities?: Record<string, unknown>; headers?: Record<string, string | undefined> } = {}): Promise<Reply> {
  const headers: Record<string, string | undefined> = { ...options.headers };
  if (method.startsWith('tasks/') && typeof params.taskId === 'string' && !('Mcp-Name' in headers)) headers['Mcp-Name'] = params.taskId;
  return modern(port, { method, params, meta: envelope({}, options.capabilities ?? WITH_TASKS), headers });
}

/** The result of a reply, failing with the reply when it is not one. */
export function resultOf(reply: Reply): any {
  if (!reply.final || !('result' in reply.final)) throw new Error(`expected a result, got ${reply.status}: ${reply.text}`);
  return reply.final.result;
}

export function errorOf(reply: Reply): any {
  if (!reply.final || !('error' in reply.final)) throw new Error(`expected an error, got ${reply.status}: ${reply.text}`);
  return reply.final.error;
}

/** Polls tasks/get until `done` holds for the task (every 20 ms; fails after 5 s). */
export async function pollTask(port: number, taskId: string, done: (task: any) => boolean, options: { capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {}): Promise<any> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const task = resultOf(await taskRequest(port, 'tasks/get', { taskId }, options));
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const isTerminal = (task: any) => ['completed', 'failed', 'cancelled'].includes(task.status);

/** A promise the test resolves: the way a handler is held until the test lets it finish. */
export class Gate {
  readonly opened: Promise<void>;
  open!: () => void;
  constructor() {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
}

export interface Fixture {
  server: McpServer;
  /** Gates of `held` calls, by label, created when the call starts. */
  gates: Map<string, Gate>;
  /** Labels of `held` calls whose signal fired. */
  aborted: Set<string>;
  /** Resolves once the `held` call labelled `label` has started. */
  startedOf(label: string): Promise<void>;
}

/** A server with task-capable tools. `held` waits for the test to open its gate (or for its signal). */
export function taskServer(options: TaskOptions = {}): Fixture {
  const server = new McpServer({ name: 'tasks-spec', version: '1.0.0' }, { tasks: { syncWindowMs: 20, ...options } });
  const gates = new Map<string, Gate>();
  const aborted = new Set<string>();
  const startedResolvers = new Map<string, () => void>();
  const started = new Map<string, Promise<void>>();
  const expect = (label: string) => {
    if (!started.has(label)) started.set(label, new Promise<void>((resolve) => startedResolvers.set(label, resolve)));
    return started.get(label)!;
  };
  server.tool('plain', { description: 'never a task', inputSchema: { name: z.string() } }, ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }));
  server.tool('quick', { description: 'optional, answers at once', taskSupport: 'optional' }, () => ({ content: [{ type: 'text', text: 'quick' }] }));
  server.tool('held', { description: 'optional, waits for the test', inputSchema: { label: z.string() }, taskSupport: 'optional' }, async ({ label }, ctx) => {
    const gate = new Gate();
    gates.set(label, gate);
    expect(label);
    startedResolvers.get(label)!();
    await ctx.progress(1, 2, `holding ${label}`);
    await new Promise<void>((resolve, reject) => {
      gate.opened.then(resolve);
      ctx.signal.addEventListener('abort', () => {
        aborted.add(label);
        reject(ctx.signal.reason);
      });
    });
    return { content: [{ type: 'text', text: `released ${label}` }] };
  });
  server.tool('required_quick', { description: 'required, answers at once', taskSupport: 'required' }, () => ({ content: [{ type: 'text', text: 'done at once' }] }));
  server.tool('tool_error', { description: 'required, fails as a tool', taskSupport: 'required' }, () => {
    throw new Error('tool failed');
  });
  server.tool('protocol_error', { description: 'required, fails with a JSON-RPC error', taskSupport: 'required' }, () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad input', { field: 'x' });
  });
  server.tool('ask_two', { description: 'optional, asks two questions at once', taskSupport: 'optional' }, async (_args, ctx) => {
    const question = { message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
    const [a, b] = await Promise.all([ctx.elicit(question, { key: 'a' }), ctx.elicit(question, { key: 'b' })]);
    return { content: [{ type: 'text', text: `${String(a.content?.name)} & ${String(b.content?.name)}` }] };
  });
  server.tool('mrtr_then_task', { description: 'required, one MRTR round, then a task', taskSupport: 'required' }, async (_args, ctx) => {
    const question = { message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
    if (ctx.requestState === undefined) ctx.inputRequired({ user_name: { method: 'elicitation/create', params: question } }, { round: 1 });
    const answer = await ctx.elicit(question, { key: 'user_name' });
    return { content: [{ type: 'text', text: `Hi ${String(answer.content?.name)} (state ${JSON.stringify(ctx.requestState)})` }] };
  });
  server.tool('input_in_task', { description: 'optional, becomes a task, then asks with ctx.inputRequired', inputSchema: { label: z.string() }, taskSupport: 'optional' }, async ({ label }, ctx) => {
    if (ctx.requestState === undefined) {
      await new Promise<void>((resolve) => {
        const gate = new Gate();
        gates.set(label, gate);
        gate.opened.then(resolve);
      });
      ctx.inputRequired({ color: { method: 'elicitation/create', params: { message: 'Color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } } } } } }, 'asked');
    }
    const answer = await ctx.elicit({ message: 'Color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } } } }, { key: 'color' });
    return { content: [{ type: 'text', text: `${String(answer.content?.color)} (${String(ctx.requestState)})` }] };
  });
  return { server, gates, aborted, startedOf: expect };
}
