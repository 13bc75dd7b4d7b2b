import type { McpServer } from '../server/mcp-server.js';
import type { MessageBus } from '../store/message-bus.js';
import { BusTaskSignals } from './bus-task-signals.js';
import { TASK_DEFAULTS } from './task-defaults.js';
import { TaskStatusRelay, type TaskStatusEvents } from './task-status-relay.js';
import type { TaskRecord } from './task-store.js';

/**
 * What the tasks of one server share with the other instances through the middleware's message bus: status
 * changes (for `subscriptions/listen` streams, channel `task-status`) and, when the `bus` option was given and
 * the `tasks.signals` option was not, the signals that wake a running handler when its task is answered or cancelled elsewhere (channel
 * `task-signals`). Built once with the middleware; `ready()` and `stop()` follow the middleware's.
 */
export class TaskBusBridge implements TaskStatusEvents {
  private readonly status: TaskStatusRelay;
  private readonly signals: BusTaskSignals | undefined;

  constructor(
    server: McpServer,
    bus: MessageBus,
    onError: (error: unknown) => void,
    /** The bus was given (shared with other instances): signals go through it. The default bus reaches no one. */
    busShared: boolean,
  ) {
    this.status = new TaskStatusRelay(server, bus, onError);
    // Tasks must be on when the middleware is built (tools declared first); otherwise they keep polling the store.
    if (busShared && server.tasks?.signalsReplaceable) {
      this.signals = new BusTaskSignals(bus, TASK_DEFAULTS.busFallbackPollIntervalMs, onError);
      server.tasks.useSignals(this.signals);
    }
  }

  subscribe(listener: (task: TaskRecord) => void): () => void {
    return this.status.subscribe(listener);
  }

  async ready(): Promise<void> {
    await Promise.all([this.status.ready(), this.signals?.ready()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.status.stop(), this.signals?.stop()]);
  }
}
