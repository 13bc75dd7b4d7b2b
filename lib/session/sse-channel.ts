import type { SseEvent } from './sse-event.js';

/**
 * A live connection's queue of events, consumed by the HTTP layer with `for await`. `end()` lets the consumer
 * drain what is queued, then finish; the consumer's `return()` (client gone) calls `onDetach`.
 */
export class SseChannel implements AsyncIterableIterator<SseEvent> {
  private readonly queue: SseEvent[] = [];
  private waiter: ((result: IteratorResult<SseEvent>) => void) | undefined;
  private ended = false;
  private detached = false;
  onDetach: (() => void) | undefined;

  /** False once the consumer has gone or the channel has ended: the event was not queued. */
  push(event: SseEvent): boolean {
    if (this.ended) return false;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
    return true;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  next(): Promise<IteratorResult<SseEvent>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  return(): Promise<IteratorResult<SseEvent>> {
    this.queue.length = 0;
    this.end();
    if (!this.detached) {
      this.detached = true;
      this.onDetach?.();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }
}
