import { isClientResultFor } from '../protocol/client-requests.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import { describeValue } from '../protocol/safe-text.js';
import type { CallToolResult, ClientCapabilities } from '../protocol/types.js';
import { isStatelessEraVersion } from '../protocol/versions.js';
import type { RequestContext } from '../server/request-context.js';
import { principalTag } from '../server/request-state.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import { RELATED_TASK_META_KEY, TASKS_EXTENSION_ID, type TaskSupport } from './task-constants.js';
import { TASK_DEFAULTS } from './task-defaults.js';
import { TaskExecution } from './task-execution.js';
import type { TaskOptions } from './task-options.js';
import { PollingTaskSignals, type TaskSignals } from './task-signals.js';
import { isTerminalStatus, type TaskRecord, type TaskStore } from './task-store.js';

/** The first session-era version with (experimental) tasks. */
const FIRST_TASKS_VERSION = '2025-11-25';

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Receives a task whose status (or outstanding input) just changed, as the store now has it. */
export type TaskStatusListener = (task: TaskRecord) => void;

/**
 * The tasks extension on one server: decides when a `tools/call` becomes a task, runs it, and answers
 * `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28) and `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` (2025-11-25 sessions) from the store, on whichever instance the request reaches.
 */
export class TaskService {
  readonly store: TaskStore;
  private signals: TaskSignals;
  /** Whether `signals` came from the options (then the middleware's bus does not replace it). */
  private readonly signalsGiven: boolean;
  private readonly statusListeners = new Set<TaskStatusListener>();
  private readonly syncWindowMs: number;
  private readonly ttlMs: number;
  private readonly maxTtlMs: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly running = new Set<TaskExecution>();

  constructor(options: TaskOptions = {}) {
    for (const name of ['syncWindowMs', 'ttlMs', 'maxTtlMs', 'pollIntervalMs', 'storePollIntervalMs', 'leaseMs'] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isInteger(value) && value >= (name === 'syncWindowMs' ? 0 : 1))) {
        throw new TypeError(`tasks.${name} must be a ${name === 'syncWindowMs' ? 'non-negative' : 'positive'} integer number of milliseconds (got ${String(value)}).`);
      }
    }
    this.store = options.store ?? new InMemoryTaskStore();
    this.signals = options.signals ?? new PollingTaskSignals(options.storePollIntervalMs ?? TASK_DEFAULTS.storePollIntervalMs);
    this.signalsGiven = options.signals !== undefined;
    this.syncWindowMs = options.syncWindowMs ?? TASK_DEFAULTS.syncWindowMs;
    this.ttlMs = options.ttlMs ?? TASK_DEFAULTS.ttlMs;
    this.maxTtlMs = Math.max(this.ttlMs, options.maxTtlMs ?? TASK_DEFAULTS.maxTtlMs);
    this.pollIntervalMs = options.pollIntervalMs ?? TASK_DEFAULTS.pollIntervalMs;
    this.leaseMs = options.leaseMs ?? TASK_DEFAULTS.leaseMs;
    this.onError = options.onError ?? ((error: unknown) => console.error('[mcp-express]', error));
  }

  /**
   * Calls `listener` after every status change of a task made through this instance (new input requests,
   * answers that leave none outstanding, the end of a task, a lost instance found), with the task as stored.
   * Returns the function that removes it.
   */
  addStatusListener(listener: TaskStatusListener): () => void {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  }

  /**
   * @internal The middleware's bus signals, used unless the `signals` option was given. Executions that already
   * run keep the signals they started with. Returns whether they were taken.
   */
  useSignals(signals: TaskSignals): boolean {
    if (this.signalsGiven) return false;
    this.signals = signals;
    return true;
  }

  /** @internal Whether `useSignals` would take other signals (the `signals` option was not given). */
  get signalsReplaceable(): boolean {
    return !this.signalsGiven;
  }

  /** Handlers running as tasks (or still deciding) on this instance. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Serves a `tools/call` of a tool with task support: synchronously when the client did not opt in (a
   * required tool is then refused) or the tool finished fast, as a task otherwise.
   */
  async callTool(params: Record<string, unknown> | undefined, ctx: RequestContext, support: TaskSupport, run: (ctx: RequestContext) => Promise<CallToolResult>): Promise<Record<string, unknown>> {
    const modern = isStatelessEraVersion(ctx.protocolVersion);
    const hint = params?.task;
    if (support === 'none') return run(ctx) as Promise<Record<string, unknown>>;
    if (modern) {
      if (!hasTasksExtension(ctx.clientCapabilities)) {
        if (support === 'required') throw missingTasksExtension(`Tool ${String(params?.name)} runs only as a task`);
        return run(ctx) as Promise<Record<string, unknown>>;
      }
    } else if (!isObject(hint) || ctx.protocolVersion < FIRST_TASKS_VERSION) {
      if (support === 'required') {
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${String(params?.name)} runs only as a task: call it with params.task (a 2025-11-25 client with the tasks capability) or from a 2026-07-28 client with the ${TASKS_EXTENSION_ID} extension`);
      }
      return run(ctx) as Promise<Record<string, unknown>>;
    }
    const requestedTtl = isObject(hint) && Number.isInteger(hint.ttl) && (hint.ttl as number) > 0 ? (hint.ttl as number) : undefined;
    const execution = new TaskExecution(
      {
        store: this.store,
        signals: this.signals,
        syncWindowMs: this.syncWindowMs,
        leaseMs: this.leaseMs,
        onError: this.onError,
        onEnd: (ended) => this.running.delete(ended),
        onStatusChange: (taskId) => this.reportStatus(taskId),
      },
      ctx,
      {
        owner: principalTag(ctx.principal),
        ...(modern || ctx.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
        ttlMs: Math.min(requestedTtl ?? this.ttlMs, this.maxTtlMs),
        pollIntervalMs: this.pollIntervalMs,
      },
      support,
      !modern,
      run,
    );
    this.running.add(execution);
    const start = await execution.start();
    if (start.kind === 'sync') return start.result as Record<string, unknown>;
    return modern ? { ...taskFields(start.task), resultType: 'task' } : { task: legacyTask(start.task) };
  }

  /** `tasks/get`: the task, with its input requests, result or error inlined (2026-07-28), or the bare task (2025-11-25). */
  async get(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    const task = await this.find(params, ctx);
    if (!isStatelessEraVersion(ctx.protocolVersion)) return legacyTask(task);
    return detailedTask(task);
  }

  /**
   * `tasks/update` (2026-07-28): records the answers to outstanding input requests; unknown, already answered
   * or malformed answers are ignored. The running handler picks them up.
   */
  async update(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    const task = await this.find(params, ctx);
    const responses = params?.inputResponses;
    if (!isObject(responses)) throw new McpError(ErrorCode.InvalidParams, 'tasks/update needs params.inputResponses, an object of answers keyed like the task\'s inputRequests');
    const accepted: Record<string, unknown> = {};
    for (const [key, answer] of Object.entries(responses)) {
      const request = Object.hasOwn(task.inputRequests, key) ? task.inputRequests[key] : undefined;
      if (request && isClientResultFor(request.method, answer)) accepted[key] = answer;
    }
    if (Object.keys(accepted).length > 0) {
      const taken = await this.store.answerInputRequests(task.taskId, accepted);
      this.signals.changed(task.taskId);
      // The last outstanding answer puts the task back to working.
      if (taken.length > 0 && taken.length === Object.keys(task.inputRequests).length) this.reportStatus(task.taskId);
    }
    return EMPTY;
  }

  /**
   * `tasks/cancel`: ends the task `cancelled` at once (the handler's signal fires where it runs). An empty ack in
   * 2026-07-28, idempotent; the task in 2025-11-25, where a finished task cannot be cancelled (-32602).
   */
  async cancel(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    const task = await this.find(params, ctx);
    const modern = isStatelessEraVersion(ctx.protocolVersion);
    if (isTerminalStatus(task.status)) {
      if (modern) return EMPTY;
      throw new McpError(ErrorCode.InvalidParams, `Task ${task.taskId} is already ${task.status} and cannot be cancelled`);
    }
    const ended = await this.store.finish(task.taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
    for (const execution of this.running) if (execution.taskId === task.taskId) execution.cancelled();
    this.signals.changed(task.taskId);
    if (ended) this.reportStatus(task.taskId);
    if (modern) return EMPTY;
    return legacyTask((await this.store.get(task.taskId)) ?? { ...task, status: 'cancelled' });
  }

  /** `tasks/result` (2025-11-25): waits until the task ends, then answers as the original call would have. */
  async result(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    let task = await this.find(params, ctx);
    if (!isTerminalStatus(task.status)) task = await this.untilTerminal(task.taskId, ctx);
    if (task.status === 'completed' && task.result) {
      const meta = isObject(task.result._meta) ? task.result._meta : {};
      return { ...task.result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: task.taskId } } };
    }
    if (task.status === 'failed' && task.error) throw new McpError(task.error.code, task.error.message, task.error.data);
    throw new McpError(ErrorCode.InvalidRequest, `Task ${task.taskId} was cancelled and has no result`);
  }

  /** `tasks/list` (2025-11-25): the caller's tasks, newest first. */
  async list(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    const cursor = params?.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tasks/list: params.cursor must be the nextCursor of an earlier page');
    const page = await this.store.list(principalTag(ctx.principal), { cursor, limit: TASK_DEFAULTS.listPageSize });
    const result: Record<string, unknown> = { tasks: page.tasks.map((task) => legacyTask(task)) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  }

  /**
   * Stops every handler running here without touching the store, as a crash would: their tasks are reported
   * `failed` once their leases lapse. For shutdown and tests.
   */
  abandonRunning(): void {
    for (const execution of [...this.running]) execution.abandon();
  }

  /** The caller's task: unknown, expired and other principals' tasks are all the same -32602. */
  private async find(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<TaskRecord> {
    if (isStatelessEraVersion(ctx.protocolVersion) && !hasTasksExtension(ctx.clientCapabilities)) {
      throw missingTasksExtension(`${ctx.method} needs the tasks extension`);
    }
    const taskId = params?.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0) throw new McpError(ErrorCode.InvalidParams, `${ctx.method} needs params.taskId, the id of a task`);
    let task = await this.store.get(taskId);
    if (!task || task.owner !== principalTag(ctx.principal)) throw new McpError(ErrorCode.InvalidParams, `Unknown task: ${describeValue(taskId)} (it never existed, has expired, or belongs to someone else)`);
    if (!isTerminalStatus(task.status) && task.leaseExpiresAt !== undefined && task.leaseExpiresAt < Date.now()) {
      // The instance running the handler stopped renewing its lease: it is gone, and so is the handler.
      const ended = await this.store.finish(taskId, {
        status: 'failed',
        error: { code: ErrorCode.InternalError, message: 'The server instance running this task was lost before it finished; call the tool again' },
      });
      task = (await this.store.get(taskId)) ?? task;
      if (ended) this.emitStatus(task);
    }
    return task;
  }

  /** Reads the task after a status change and tells the listeners (nothing is read when nobody listens). */
  private reportStatus(taskId: string): void {
    if (this.statusListeners.size === 0) return;
    this.store.get(taskId).then((task) => {
      if (task) this.emitStatus(task);
    }, this.onError);
  }

  private emitStatus(task: TaskRecord): void {
    for (const listener of this.statusListeners) {
      try {
        listener(task);
      } catch (error) {
        // A listener that throws must not stop the others.
        this.onError(error);
      }
    }
  }

  private untilTerminal(taskId: string, ctx: RequestContext): Promise<TaskRecord> {
    return new Promise<TaskRecord>((resolve, reject) => {
      let reading = false;
      const check = async () => {
        if (reading) return;
        reading = true;
        try {
          const task = await this.find({ taskId }, ctx);
          if (isTerminalStatus(task.status)) {
            stop();
            resolve(task);
          }
        } catch (error) {
          stop();
          reject(error);
        } finally {
          reading = false;
        }
      };
      const unwatch = this.signals.watch(taskId, () => void check());
      const onAbort = () => {
        stop();
        reject(ctx.signal.reason);
      };
      const stop = () => {
        unwatch();
        ctx.signal.removeEventListener('abort', onAbort);
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      void check();
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a 2026-07-28 request opted in to the tasks extension. */
export function hasTasksExtension(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && Object.hasOwn(extensions, TASKS_EXTENSION_ID) && extensions[TASKS_EXTENSION_ID] != null;
}

function missingTasksExtension(what: string): McpError {
  return new McpError(
    ErrorCode.MissingClientCapability,
    `${what}: declare the ${TASKS_EXTENSION_ID} extension in the request's _meta clientCapabilities.extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

/** The fields of a 2026-07-28 Task (flat in CreateTaskResult and tasks/get). */
function taskFields(task: TaskRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) fields.statusMessage = task.statusMessage;
  fields.createdAt = task.createdAt;
  fields.lastUpdatedAt = task.lastUpdatedAt;
  fields.ttlMs = task.ttlMs;
  if (task.pollIntervalMs !== undefined) fields.pollIntervalMs = task.pollIntervalMs;
  return fields;
}

/** A 2026-07-28 DetailedTask: the task with its input requests, result or error (`tasks/get`, `notifications/tasks`). */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const detailed = taskFields(task);
  if (task.status === 'input_required') detailed.inputRequests = task.inputRequests;
  else if (task.status === 'completed' && task.result) detailed.result = task.result;
  else if (task.status === 'failed' && task.error) detailed.error = task.error;
  return detailed;
}

/** A 2025-11-25 Task (`ttl`, `pollInterval`; `tasks/get`, `notifications/tasks/status`). */
export function legacyTask(task: TaskRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) fields.statusMessage = task.statusMessage;
  fields.createdAt = task.createdAt;
  fields.lastUpdatedAt = task.lastUpdatedAt;
  fields.ttl = task.ttlMs;
  if (task.pollIntervalMs !== undefined) fields.pollInterval = task.pollIntervalMs;
  return fields;
}
