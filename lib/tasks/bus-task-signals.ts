import { randomUUID } from 'node:crypto';
import type { MessageBus } from '../store/message-bus.js';
import { PollingTaskSignals, type TaskSignals } from './task-signals.js';

/** The bus channel of task signals (an answer or a cancellation was written for a task). */
export const TASK_SIGNALS_CHANNEL = 'task-signals';

/**
 * `TaskSignals` over the middleware's message bus: a `tasks/update` or `tasks/cancel` served on any instance
 * wakes the handler of that task on the instance running it at once. Bus delivery is at most once, so each
 * watched task is still read every `fallbackPollMs` (a message lost while the bus was down costs that much delay,
 * never the answer).
 */
export class BusTaskSignals implements TaskSignals {
  /** Tells this instance's own messages apart: they were delivered when sent. */
  private readonly instanceId = randomUUID();
  private readonly local: PollingTaskSignals;
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;

  constructor(
    private readonly bus: MessageBus,
    fallbackPollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.local = new PollingTaskSignals(fallbackPollMs);
    this.subscribed = this.bus
      .subscribe(TASK_SIGNALS_CHANNEL, (message) => {
        const signal = message as { taskId?: unknown; from?: unknown } | null;
        if (typeof signal?.taskId === 'string' && signal.from !== this.instanceId) this.local.changed(signal.taskId);
      })
      .catch((error: unknown) => {
        this.onError(error);
        return undefined;
      });
  }

  /** Resolves once signals from the bus are being received. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  watch(taskId: string, onChange: () => void): () => void {
    return this.local.watch(taskId, onChange);
  }

  changed(taskId: string): void {
    this.local.changed(taskId);
    this.bus.publish(TASK_SIGNALS_CHANNEL, { taskId, from: this.instanceId }).catch(this.onError);
  }

  async stop(): Promise<void> {
    const unsubscribe = await this.subscribed;
    await unsubscribe?.().catch(this.onError);
  }
}
