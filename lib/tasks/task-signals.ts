/**
 * How the instance running a task's handler learns that the task changed elsewhere (an answer arrived through
 * `tasks/update`, or `tasks/cancel`), possibly on another instance. The seam a cross-instance message bus
 * replaces: `changed` publishes, `watch` subscribes.
 */
export interface TaskSignals {
  /** Calls `onChange` whenever `taskId` may have changed, until the returned function is called. */
  watch(taskId: string, onChange: () => void): () => void;
  /** Says that this instance just changed `taskId` in the store (after the write). */
  changed(taskId: string): void;
}

/**
 * The default `TaskSignals`: changes made on this instance are delivered at once; changes made on other
 * instances are found by polling, every `intervalMs` for each watched task.
 */
export class PollingTaskSignals implements TaskSignals {
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(private readonly intervalMs: number) {
    if (!(intervalMs > 0)) throw new RangeError(`The store poll interval must be a positive number of milliseconds (got ${String(intervalMs)}).`);
  }

  watch(taskId: string, onChange: () => void): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(onChange);
    const timer = setInterval(onChange, this.intervalMs);
    // Polling alone never keeps a process alive: the handler's own work does.
    timer.unref();
    return () => {
      clearInterval(timer);
      set.delete(onChange);
      if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
    };
  }

  changed(taskId: string): void {
    const set = this.watchers.get(taskId);
    if (set) for (const onChange of [...set]) onChange();
  }
}
