import type { InputRequest } from '../server/input-required.js';

/** Where a task is in its life: `working` ⇄ `input_required` → `completed` | `failed` | `cancelled` (terminal). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error, as a `failed` task reports it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task as a `TaskStore` keeps it: plain JSON, so any instance sharing the store can serve it. */
export interface TaskRecord {
  /** Unguessable id (a random UUID). */
  taskId: string;
  /** Tag of the principal that created the task: every other principal is told the task does not exist. */
  owner: string;
  /**
   * The 2025-11-25 session whose request created the task, which gets its `notifications/tasks/status`. Absent for
   * 2026-07-28 tasks (stateless).
   */
  sessionId?: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601; every write sets it. */
  lastUpdatedAt: string;
  /** How long the task stays readable after its last write; `null` keeps it until the store drops it. */
  ttlMs: number | null;
  /** The polling interval suggested to clients. */
  pollIntervalMs?: number;
  /** Input the task waits for, by key (keys are unique over the task's life). */
  inputRequests: Record<string, InputRequest>;
  /** Answers received for earlier input requests, by key, for the instance running the handler to pick up. */
  inputResponses: Record<string, unknown>;
  /** The tool's result, once `completed`. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, once `failed`. */
  error?: TaskError;
  /** Epoch ms until which the running instance has promised to be alive; past it, the task is lost. */
  leaseExpiresAt?: number;
}

/** How a task ends. */
export type TaskOutcome =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'failed'; error: TaskError }
  | { status: 'cancelled'; statusMessage?: string };

/**
 * Durable task state, shared by every instance that serves the same tasks. Every write is atomic per task, and
 * no write changes a task once it is terminal. A task is kept at least `ttlMs` after its last write (a store may
 * drop it afterwards); `ttlMs: null` keeps it until the store drops it by its own rules.
 *
 * Run `describeTaskStoreContract` from `mcp-express/testing` against your own implementation.
 */
export interface TaskStore {
  /** Stores a new task; resolves only once `get` (on any instance) finds it. Rejects if the id exists. */
  create(task: TaskRecord): Promise<void>;
  /** The task, or undefined when unknown or expired. Returns a copy: changing it changes nothing stored. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Adds input requests (keys not yet used by the task) and sets the status to `input_required`. Returns false
   * (and changes nothing) when the task is unknown or terminal.
   */
  addInputRequests(taskId: string, requests: Record<string, InputRequest>): Promise<boolean>;
  /**
   * Records answers to outstanding input requests: each key that is outstanding moves from `inputRequests` to
   * `inputResponses`; other keys are ignored. When none is left outstanding the status goes back to `working`.
   * Returns the keys it accepted (none when the task is unknown or terminal).
   */
  answerInputRequests(taskId: string, responses: Record<string, unknown>): Promise<string[]>;
  /** Sets the status message of a task that is not terminal. */
  setStatusMessage(taskId: string, statusMessage: string): Promise<void>;
  /** Extends the lease of a task that is not terminal (its running instance is alive until `leaseExpiresAt`). */
  renewLease(taskId: string, leaseExpiresAt: number): Promise<void>;
  /**
   * Ends a task that is not terminal yet with `outcome` (outstanding input requests are dropped). Returns false
   * when it was unknown or already terminal: the first outcome wins.
   */
  finish(taskId: string, outcome: TaskOutcome): Promise<boolean>;
  /** Tasks of one owner, newest first, `limit` at a time (`cursor` from the previous page). For 2025-11-25 `tasks/list`. */
  list(owner: string, options?: { cursor?: string; limit?: number }): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}
