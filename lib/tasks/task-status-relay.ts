import type { McpServer } from '../server/mcp-server.js';
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
 * on any instance hears of a task that runs, is answered or is cancelled on another: changes made through this
 * instance are published, and what the bus delivers (this instance's own changes included) goes to the local
 * listeners. When the bus refuses a publish the change still reaches this instance's listeners.
 */
export class TaskStatusRelay implements TaskStatusEvents {
  private readonly listeners = new Set<(task: TaskRecord) => void>();
  private readonly detachServer: () => void;
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;

  constructor(
    server: McpServer,
    private readonly bus: MessageBus,
    private readonly onError: (error: unknown) => void,
  ) {
    this.detachServer = server.addTaskStatusListener((task) => {
      // What the bus carries is what a listener may send, plus the owner it is checked against.
      const message = withoutPrivateFields(task);
      this.bus.publish(TASK_STATUS_CHANNEL, message).catch((error: unknown) => {
        this.onError(error);
        this.deliver(message);
      });
    });
    this.subscribed = this.bus.subscribe(TASK_STATUS_CHANNEL, (message) => this.deliver(message)).catch((error: unknown) => {
      this.onError(error);
      return undefined;
    });
  }

  /** Resolves once changes from the bus are being received. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  subscribe(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async stop(): Promise<void> {
    this.detachServer();
    this.listeners.clear();
    const unsubscribe = await this.subscribed;
    await unsubscribe?.().catch(this.onError);
  }

  private deliver(message: unknown): void {
    if (!isTaskRecord(message)) return;
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch (error) {
        // A listener that throws must not stop the others.
        this.onError(error);
      }
    }
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
