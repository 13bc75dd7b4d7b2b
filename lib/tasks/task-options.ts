import type { TaskSignals } from './task-signals.js';
import type { TaskStore } from './task-store.js';

/** Options of the tasks extension: `new McpServer(info, { tasks: { ... } })`. Every one has a default. */
export interface TaskOptions {
  /**
   * Where tasks live. Every instance that should answer `tasks/get`, `tasks/update` and `tasks/cancel` for the
   * same tasks needs the same store (e.g. `RedisTaskStore` from `mcp-express/redis`). Defaults to a new
   * `InMemoryTaskStore()` (this process only).
   */
  store?: TaskStore;
  /**
   * Milliseconds a task-capable tool runs before its call becomes a task. A tool with `taskSupport: 'optional'`
   * that finishes sooner answers synchronously; an input round it asks for with `ctx.inputRequired` in that time
   * is a synchronous `input_required` answer (any support). A handler that asks for input with `ctx.elicit`,
   * `ctx.sample` or `ctx.listRoots` that the request does not answer becomes a task at once. Defaults to `100`.
   */
  syncWindowMs?: number;
  /** Milliseconds a task stays readable after its last change (`ttlMs` on the wire). Defaults to `3600000` (1 hour). */
  ttlMs?: number;
  /** The longest TTL a 2025-11-25 client may ask for with `task.ttl`. Defaults to `86400000` (24 hours). */
  maxTtlMs?: number;
  /** The polling interval suggested to clients (`pollIntervalMs`, `pollInterval` in 2025-11-25). Defaults to `500`. */
  pollIntervalMs?: number;
  /**
   * How the instance running a handler hears of answers and cancellations sent to other instances. Defaults to
   * polling the store every `storePollIntervalMs` while the handler runs (changes made on the same instance are
   * seen at once).
   */
  signals?: TaskSignals;
  /** Milliseconds between two reads of the store by a running task's instance (default `signals`). Defaults to `250`. */
  storePollIntervalMs?: number;
  /**
   * Milliseconds an instance running a task stays trusted without renewing its lease (it renews every third of
   * it). When the instance is lost, the task is reported `failed` once this has passed. Defaults to `30000`.
   */
  leaseMs?: number;
  /** Receives store errors no client can be told about. Defaults to `console.error`. */
  onError?: (error: unknown) => void;
}
