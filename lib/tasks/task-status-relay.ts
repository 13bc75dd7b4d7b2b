import type { McpServer } from '../server/mcp-server.js';
import { BusRelay } from '../store/bus-relay.js';
import type { MessageBus } from '../store/message-bus.js';
import type { TaskRecord } from './task-store.js';

/** Subscribing to the task status changes of a deployment, as the listen streams of one middleware see them. */
export interface TaskStatusEvents {
  /** Calls `listener` with every task whose status changed, on any instance; returns the unsubscribe function. */
  subscribe(listener: (task: TaskRecord) => void): () => void;
}

/** The bus channel of task status changes. */
export const TASK_STATUS_CHANNEL = 'task-status';

/**
 * Carries the task status changes of a server through the message bus, so that a `subscriptions/listen` stream
 * on any instance hears of a task that runs, is answered or is cancelled on another. What the bus carries is what
 * a listener may send, plus the owner it is checked against: never the client's answers or the lease.
 */
export class TaskStatusRelay extends BusRelay<TaskRecord> implements TaskStatusEvents {
  constructor(server: McpServer, bus: MessageBus, onError: (error: unknown) => void) {
    super(bus, TASK_STATUS_CHANNEL, (publish) => server.addTaskStatusListener((task) => publish(withoutPrivateFields(task))), isTaskRecord, onError);
  }
}

/** The record without the answers the client gave and the running instance's lease. */
function withoutPrivateFields(task: TaskRecord): TaskRecord {
  const { inputResponses: _answers, leaseExpiresAt: _lease, ...rest } = task;
  return { ...rest, inputResponses: {} };
}

function isTaskRecord(value: unknown): value is TaskRecord {
  const task = value as Partial<TaskRecord> | null;
  return (
    typeof task?.taskId === 'string' &&
    typeof task.owner === 'string' &&
    typeof task.status === 'string' &&
    typeof task.inputRequests === 'object' &&
    task.inputRequests !== null
  );
}
