import { randomUUID } from 'node:crypto';
import { isClientResultFor } from '../protocol/client-requests.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { ToolOutputError } from '../server/tool-output-error.js';
import { clientCapabilityFor } from '../protocol/methods.js';
import type { CallToolResult } from '../protocol/types.js';
import { InputRequiredSignal, type InputRequest } from '../server/input-required.js';
import type { OutgoingRequestOptions, RequestChannel } from '../server/request-channel.js';
import { missingCapabilityError, RequestContext } from '../server/request-context.js';
import type { TaskSignals } from './task-signals.js';
import { isTerminalStatus, type TaskError, type TaskOutcome, type TaskRecord, type TaskStore } from './task-store.js';

/** What a task execution needs from the service that starts it. */
export interface TaskExecutionSettings {
  store: TaskStore;
  signals: TaskSignals;
  syncWindowMs: number;
  leaseMs: number;
  onError: (error: unknown) => void;
  /** Called when the execution ends (finished, cancelled or abandoned). */
  onEnd: (execution: TaskExecution) => void;
  /** Called after a write that changed the task's status (new input requests, the outcome). */
  onStatusChange: (taskId: string) => void;
}

/** The fields of the task to create, decided by the service. */
export interface TaskTemplate {
  owner: string;
  /** The 2025-11-25 session that created the task, told of its status changes. */
  sessionId?: string;
  ttlMs: number | null;
  pollIntervalMs: number;
}

/** How a `tools/call` that may become a task is answered. */
export type TaskStart = { kind: 'sync'; result: CallToolResult } | { kind: 'task'; task: TaskRecord };

interface Waiter {
  method: string;
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

type Phase = 'pending' | 'creating' | 'created' | 'ended';

/** The progress token a handler's context carries in a task when the request had none (never sent anywhere). */
const TASK_PROGRESS_TOKEN = 'io.modelcontextprotocol/tasks';

/**
 * Runs one tool handler that may become a task. It starts like a synchronous call; it becomes a task when the
 * handler needs input the request does not carry, when `syncWindowMs` passes, or at once (`immediate`). Before
 * that, MRTR answers come from the request and `ctx.inputRequired` ends the call with `input_required`; after
 * it, input requests are recorded in the store and answered through `tasks/update`, `tasks/cancel` aborts the
 * handler's signal, and the outcome is written to the store. A lease, renewed while the handler runs, lets any
 * instance see that this one was lost.
 */
export class TaskExecution implements RequestChannel {
  readonly taskId = randomUUID();
  /** The handler's context: the same API as a synchronous call. */
  readonly ctx: RequestContext;
  private phase: Phase = 'pending';
  private readonly answers: Record<string, unknown> = Object.create(null);
  private readonly waiters = new Map<string, Waiter>();
  /** Input requests not yet written to the store. */
  private unrecorded: Record<string, InputRequest> = {};
  private recordScheduled = false;
  private readonly counters: Record<string, number> = {};
  /** The handler's own state from `ctx.inputRequired` inside the task, for the next run. */
  private state: unknown;
  private hasState = false;
  private writes: Promise<unknown> = Promise.resolve();
  private windowTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private stopWatching: (() => void) | undefined;
  private reading = false;
  private ended = false;
  private readAgain = false;
  private creation: Promise<void> | undefined;
  private resolveStart!: (start: TaskStart) => void;
  private rejectStart!: (error: unknown) => void;
  private readonly started: Promise<TaskStart>;
  private readonly detachOuter: () => void;
  private readonly hadProgressToken: boolean;
  /** The last progress message before the task existed. */
  private statusMessage: string | undefined;

  constructor(
    private readonly settings: TaskExecutionSettings,
    private readonly outer: RequestContext,
    private readonly template: TaskTemplate,
    private readonly support: 'optional' | 'required',
    /** 2025-11-25 tasks: the client asked for a task, so it is created at once, and MRTR does not exist. */
    private readonly immediate: boolean,
    private readonly run: (ctx: RequestContext) => Promise<CallToolResult>,
  ) {
    this.started = new Promise<TaskStart>((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
    });
    const token = outer.meta?.progressToken;
    this.hadProgressToken = token !== undefined;
    const request = { id: outer.requestId, method: outer.method, params: { _meta: { ...outer.meta, progressToken: token ?? TASK_PROGRESS_TOKEN } } };
    this.ctx = new RequestContext(request, outer.client, this, outer);
    // Until the task exists, the call belongs to its HTTP request: a disconnect cancels it.
    const onOuterAbort = () => {
      if (this.phase === 'pending') this.ctx.abort(outer.signal.reason);
    };
    outer.signal.addEventListener('abort', onOuterAbort, { once: true });
    this.detachOuter = () => outer.signal.removeEventListener('abort', onOuterAbort);
  }

  /** Runs the handler; resolves with a synchronous result or the created task, rejects with a synchronous error. */
  start(): Promise<TaskStart> {
    if (this.immediate) void this.escalate();
    else {
      this.windowTimer = setTimeout(() => void this.escalate(), this.settings.syncWindowMs);
      this.windowTimer.unref();
    }
    void this.runHandler();
    return this.started;
  }

  /** Stops everything without writing to the store, as if the process had stopped (its lease then lapses). */
  abandon(): void {
    this.end();
    this.ctx.abort(new McpError(ErrorCode.InternalError, 'The server is shutting down'));
  }

  /** The task was cancelled through this instance: the handler's signal fires now, not at the next store read. */
  cancelled(): void {
    if (this.phase !== 'created' || this.ended) return;
    this.end();
    this.ctx.abort(new McpError(ErrorCode.ServerError, 'The task was cancelled'));
  }

  // --- RequestChannel ----------------------------------------------------------------------------------------

  get requestState(): unknown {
    return this.hasState ? this.state : this.outer.requestState;
  }

  notify(notification: JsonRpcNotification): Promise<void> | void {
    const params = notification.params;
    const isProgress = notification.method === 'notifications/progress';
    if (this.phase === 'pending' || this.phase === 'creating') {
      // Kept for the task's first statusMessage, should the call become one.
      if (isProgress && typeof params?.message === 'string') this.statusMessage = params.message;
      if (isProgress && !this.hadProgressToken) return;
      return this.outer.notify(notification.method, params);
    }
    // In a task there is no stream: a progress message becomes the task's status message.
    if (isProgress && typeof params?.message === 'string' && this.phase === 'created') {
      const message = params.message;
      this.write(() => this.settings.store.setStatusMessage(this.taskId, message));
    }
  }

  async request(method: string, params: Record<string, unknown>, options: OutgoingRequestOptions): Promise<Record<string, unknown>> {
    const prefix = clientCapabilityFor(method) ?? method.replace(/[^A-Za-z0-9]+/g, '_');
    const key = options.key ?? `${prefix}-${(this.counters[prefix] = (this.counters[prefix] ?? 0) + 1)}`;
    const known = this.answers[key];
    if (isClientResultFor(method, known)) return known;
    if (this.phase === 'pending' && !this.immediate) {
      // Answers carried by the request itself (an MRTR retry) are used as in a synchronous call.
      try {
        const answer = await this.outer.request(method, params, { key, signal: options.signal });
        this.answers[key] = answer;
        return answer;
      } catch (error) {
        if (!(error instanceof InputRequiredSignal)) throw error;
      }
    }
    if (this.immediate) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} cannot be sent from a 2025-11-25 task (this server does not queue requests for tasks/result); ask for input before the task starts, or use a 2026-07-28 client`,
      );
    }
    const capability = clientCapabilityFor(method);
    if (capability !== undefined && this.outer.clientCapabilities?.[capability] === undefined) throw missingCapabilityError(capability);
    return this.awaitInput(key, { method, params }, options.signal ?? this.ctx.signal);
  }

  closeStream(): void {
    // A task has no stream to close.
  }

  closeStandaloneStream(): void {
    // Nor a standalone one.
  }

  // --- internals ---------------------------------------------------------------------------------------------

  private awaitInput(key: string, request: InputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiters.delete(key);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(key, {
        method: request.method,
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.unrecorded[key] = request;
      if (this.phase === 'pending') void this.escalate();
      else if (this.phase === 'created') this.scheduleRecord();
      // While 'creating', the creation takes (or, if too late, schedules) what is unrecorded.
    });
  }

  private scheduleRecord(): void {
    if (this.recordScheduled) return;
    this.recordScheduled = true;
    // Requests made in the same turn (Promise.all) are recorded together, so the client sees them together.
    setImmediate(() => {
      this.recordScheduled = false;
      const batch = this.unrecorded;
      this.unrecorded = {};
      if (Object.keys(batch).length === 0 || this.phase !== 'created') return;
      this.write(async () => {
        const added = await this.settings.store.addInputRequests(this.taskId, batch);
        this.settings.signals.changed(this.taskId);
        if (added) this.settings.onStatusChange(this.taskId);
      });
    });
  }

  /** Creates the task now (once). */
  private escalate(): Promise<void> {
    if (this.phase !== 'pending') return this.creation ?? Promise.resolve();
    this.phase = 'creating';
    clearTimeout(this.windowTimer);
    this.creation = (async () => {
      // Let input requests made in the same turn join the first record.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const requests = this.unrecorded;
      this.unrecorded = {};
      const task = this.newRecord(Object.keys(requests).length > 0 ? 'input_required' : 'working');
      task.inputRequests = requests;
      task.leaseExpiresAt = Date.now() + this.settings.leaseMs;
      try {
        await this.settings.store.create(task);
      } catch (error) {
        this.phase = 'ended';
        this.rejectStart(new McpError(ErrorCode.InternalError, `The task could not be stored: ${(error as Error)?.message ?? String(error)}`));
        this.ctx.abort(error);
        this.end();
        return;
      }
      this.phase = 'created';
      this.detachOuter();
      this.stopWatching = this.settings.signals.watch(this.taskId, () => void this.readStore());
      this.leaseTimer = setInterval(() => {
        this.write(() => this.settings.store.renewLease(this.taskId, Date.now() + this.settings.leaseMs));
      }, Math.max(1, Math.floor(this.settings.leaseMs / 3)));
      this.leaseTimer.unref();
      if (Object.keys(this.unrecorded).length > 0) this.scheduleRecord();
      this.resolveStart({ kind: 'task', task });
    })();
    return this.creation;
  }

  private newRecord(status: TaskRecord['status']): TaskRecord {
    const now = new Date().toISOString();
    return {
      taskId: this.taskId,
      owner: this.template.owner,
      ...(this.template.sessionId === undefined ? {} : { sessionId: this.template.sessionId }),
      status,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.template.ttlMs,
      pollIntervalMs: this.template.pollIntervalMs,
      ...(this.statusMessage === undefined ? {} : { statusMessage: this.statusMessage }),
      inputRequests: {},
      inputResponses: {},
    };
  }

  private async runHandler(): Promise<void> {
    for (;;) {
      let outcome: TaskOutcome;
      let thrown: unknown;
      try {
        outcome = { status: 'completed', result: (await this.run(this.ctx)) as Record<string, unknown> };
      } catch (error) {
        if (error instanceof InputRequiredSignal && this.phase === 'pending' && !this.immediate) {
          // An MRTR round before the task exists: the client answers it synchronously and retries.
          clearTimeout(this.windowTimer);
          this.phase = 'ended';
          this.end();
          this.rejectStart(error);
          return;
        }
        if (error instanceof InputRequiredSignal && !this.immediate && !this.ctx.isAborted) {
          // ctx.inputRequired inside a task: the requests become the task's input; the handler runs again
          // with the answers and its state, as an MRTR retry would.
          await this.escalate();
          if (this.phase !== 'created') return;
          this.state = error.state;
          this.hasState = true;
          try {
            await Promise.all(
              Object.entries(error.inputRequests).map(([key, request]) =>
                isClientResultFor(request.method, this.answers[key]) ? undefined : this.awaitInput(key, request, this.ctx.signal),
              ),
            );
          } catch {
            return this.finishAfterAbort();
          }
          for (const key of Object.keys(this.counters)) delete this.counters[key];
          continue;
        }
        thrown = error;
        // A server fault the client only sees as -32603 (an unexpected error, a result breaking its outputSchema).
        if (!(error instanceof McpError) || error instanceof ToolOutputError) this.settings.onError(error);
        outcome = { status: 'failed', error: toTaskError(error) };
      }
      return this.settle(outcome, thrown);
    }
  }

  private async settle(outcome: TaskOutcome, thrown: unknown): Promise<void> {
    if (this.phase === 'pending') {
      clearTimeout(this.windowTimer);
      if (this.support === 'optional' && !this.immediate) {
        // Finished within the window: a plain synchronous answer.
        this.phase = 'ended';
        this.end();
        if (outcome.status === 'completed') this.resolveStart({ kind: 'sync', result: outcome.result as CallToolResult });
        else this.rejectStart(thrown);
        return;
      }
      // A required task that finished at once is created finished.
      this.phase = 'ended';
      const task = this.newRecord(outcome.status);
      if (outcome.status === 'completed') task.result = outcome.result;
      else if (outcome.status === 'failed') task.error = outcome.error;
      try {
        await this.settings.store.create(task);
        this.resolveStart({ kind: 'task', task });
      } catch (error) {
        this.rejectStart(new McpError(ErrorCode.InternalError, `The task could not be stored: ${(error as Error)?.message ?? String(error)}`));
      }
      this.end();
      return;
    }
    await this.creation;
    if (this.phase !== 'created') return;
    if (this.ctx.isAborted) return this.finishAfterAbort();
    this.write(async () => {
      const finished = await this.settings.store.finish(this.taskId, outcome);
      this.settings.signals.changed(this.taskId);
      if (finished) this.settings.onStatusChange(this.taskId);
    });
    await this.writes;
    this.end();
  }

  /** The handler was aborted (cancelled, or the task ended elsewhere): whatever it returns is not recorded. */
  private async finishAfterAbort(): Promise<void> {
    await this.writes;
    this.end();
  }

  /** Reads the task after a signal: answers for waiting requests, cancellation. */
  private async readStore(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        const task = await this.settings.store.get(this.taskId);
        if (!task || isTerminalStatus(task.status)) {
          // Cancelled (or ended or expired elsewhere): the handler's signal fires; it may still clean up.
          if (this.phase === 'created' && !this.ended) {
            this.end();
            this.ctx.abort(new McpError(ErrorCode.ServerError, task?.status === 'cancelled' ? 'The task was cancelled' : 'The task ended'));
          }
          return;
        }
        for (const [key, waiter] of [...this.waiters]) {
          if (!Object.hasOwn(task.inputResponses, key)) continue;
          const answer = task.inputResponses[key];
          if (!isClientResultFor(waiter.method, answer)) continue;
          this.answers[key] = answer;
          this.waiters.delete(key);
          waiter.resolve(answer);
        }
      } while (this.readAgain);
    } catch (error) {
      this.settings.onError(error);
    } finally {
      this.reading = false;
    }
  }

  /** Store writes of this execution, one after the other. */
  private write(operation: () => Promise<unknown>): void {
    this.writes = this.writes.then(operation).catch(this.settings.onError);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.windowTimer);
    clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.detachOuter();
    this.settings.onEnd(this);
  }
}

/** A handler failure as the JSON-RPC error of a `failed` task (the message of an unexpected error is not exposed). */
function toTaskError(error: unknown): TaskError {
  if (error instanceof McpError) return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}
