import { TASK_DEFAULTS } from './task-defaults.js';
import type { InputRequest } from '../server/input-required.js';
import { isTerminalStatus, type TaskOutcome, type TaskRecord, type TaskStore } from './task-store.js';

export interface InMemoryTaskStoreOptions {
  /**
   * Most tasks kept at once. A new task past it first pushes out the oldest finished one; when every task is
   * still running, creating one fails. Defaults to `10000`.
   */
  maxTasks?: number;
}

interface Entry {
  json: string;
  terminal: boolean;
  /** Epoch ms after which the task is gone; 0 for never. */
  expiresAt: number;
}

/**
 * Tasks in this process's memory: the default store. Shared by several servers in one process it makes them
 * behave like instances of a cluster; across processes use `RedisTaskStore` (`mcp-express/redis`) or your own.
 * Expiry is checked when a task is read or a new one is created (no timers).
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxTasks: number;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? TASK_DEFAULTS.inMemoryMaxTasks;
    if (!Number.isInteger(this.maxTasks) || this.maxTasks < 1) throw new RangeError(`maxTasks must be a positive integer (got ${String(options.maxTasks)}).`);
  }

  /** Tasks held now (expired ones included until they are swept). */
  get size(): number {
    return this.entries.size;
  }

  async create(task: TaskRecord): Promise<void> {
    if (this.read(task.taskId)) throw new Error(`Task ${task.taskId} already exists`);
    if (this.entries.size >= this.maxTasks) this.makeRoom();
    this.write(task);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.read(taskId);
  }

  async addInputRequests(taskId: string, requests: Record<string, InputRequest>): Promise<boolean> {
    const task = this.read(taskId);
    if (!task || isTerminalStatus(task.status)) return false;
    for (const [key, request] of Object.entries(requests)) {
      if (!Object.hasOwn(task.inputResponses, key)) task.inputRequests[key] = request;
    }
    if (Object.keys(task.inputRequests).length > 0) task.status = 'input_required';
    this.write(task);
    return true;
  }

  async answerInputRequests(taskId: string, responses: Record<string, unknown>): Promise<string[]> {
    const task = this.read(taskId);
    if (!task || isTerminalStatus(task.status)) return [];
    const accepted: string[] = [];
    for (const [key, response] of Object.entries(responses)) {
      if (!Object.hasOwn(task.inputRequests, key)) continue;
      delete task.inputRequests[key];
      task.inputResponses[key] = response;
      accepted.push(key);
    }
    if (accepted.length === 0) return accepted;
    if (Object.keys(task.inputRequests).length === 0) task.status = 'working';
    this.write(task);
    return accepted;
  }

  async setStatusMessage(taskId: string, statusMessage: string): Promise<void> {
    const task = this.read(taskId);
    if (!task || isTerminalStatus(task.status)) return;
    task.statusMessage = statusMessage;
    this.write(task);
  }

  async renewLease(taskId: string, leaseExpiresAt: number): Promise<void> {
    const task = this.read(taskId);
    if (!task || isTerminalStatus(task.status)) return;
    task.leaseExpiresAt = leaseExpiresAt;
    this.write(task, false);
  }

  async finish(taskId: string, outcome: TaskOutcome): Promise<boolean> {
    const task = this.read(taskId);
    if (!task || isTerminalStatus(task.status)) return false;
    task.status = outcome.status;
    task.inputRequests = {};
    if (outcome.status === 'completed') task.result = outcome.result;
    else if (outcome.status === 'failed') task.error = outcome.error;
    else if (outcome.statusMessage !== undefined) task.statusMessage = outcome.statusMessage;
    this.write(task);
    return true;
  }

  async list(owner: string, options: { cursor?: string; limit?: number } = {}): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const limit = options.limit ?? TASK_DEFAULTS.listPageSize;
    const mine: TaskRecord[] = [];
    for (const taskId of [...this.entries.keys()].reverse()) {
      const task = this.read(taskId);
      if (task?.owner === owner) mine.push(task);
    }
    const start = options.cursor === undefined ? 0 : mine.findIndex((task) => task.taskId === options.cursor) + 1;
    const page = mine.slice(start, start + limit);
    return start + limit < mine.length ? { tasks: page, nextCursor: page[page.length - 1].taskId } : { tasks: page };
  }

  private read(taskId: string): TaskRecord | undefined {
    const entry = this.entries.get(taskId);
    if (!entry) return undefined;
    if (entry.expiresAt !== 0 && entry.expiresAt <= Date.now()) {
      this.entries.delete(taskId);
      return undefined;
    }
    // A copy, as a remote store would give: callers never share task objects through the store.
    return JSON.parse(entry.json) as TaskRecord;
  }

  /** Stores `task`; a visible change also moves `lastUpdatedAt` and restarts the TTL. */
  private write(task: TaskRecord, visible = true): void {
    const now = Date.now();
    if (visible) task.lastUpdatedAt = new Date(now).toISOString();
    const previous = this.entries.get(task.taskId);
    const expiresAt = visible || !previous ? (task.ttlMs === null ? 0 : now + task.ttlMs) : previous.expiresAt;
    // Map.set keeps the position of an existing key: the map stays in creation order, which list() relies on.
    this.entries.set(task.taskId, { json: JSON.stringify(task), terminal: isTerminalStatus(task.status), expiresAt });
  }

  private makeRoom(): void {
    const now = Date.now();
    for (const [taskId, entry] of this.entries) if (entry.expiresAt !== 0 && entry.expiresAt <= now) this.entries.delete(taskId);
    if (this.entries.size < this.maxTasks) return;
    for (const [taskId, entry] of this.entries) {
      if (entry.terminal) {
        this.entries.delete(taskId);
        return;
      }
    }
    throw new Error(`InMemoryTaskStore is full: ${this.maxTasks} tasks are running (option maxTasks); try again when some have finished`);
  }
}
