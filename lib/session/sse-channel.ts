import type { QueuedEventSource, SseEvent } from '../store/sse-event.js';

/**
 * Whoever a channel belongs to (a session's stream, a stateless reply), told of its consumer leaving and of its
 * queue overflowing through methods rather than closures kept on the channel: a channel is made per request, and a
 * per-request object holding closures that point back at its owner made V8 keep whole requests alive through minor
 * collections (docs/benchmarks.md, "Collections that churn, closures kept on a request").
 */
export interface SseChannelOwner {
  /** The channel's consumer went away (its `return()`); called once, after the `onDetach` listeners. */
  channelDetached(channel: SseChannel): void;
  /** The channel's queue first held more than its `maxQueuedBytes`; called once. */
  channelOverflowed(channel: SseChannel): void;
}

/**
 * A live connection's queue of events, consumed by the HTTP layer with `for await`. `end()` lets the consumer
 * drain what is queued, then finish; the consumer's `return()` (client gone) calls every `onDetach` listener.
 *
 * The queue is bounded in bytes: the HTTP layer stops pulling while the socket is congested, so a client that
 * reads slowly makes events wait here. Past `maxQueuedBytes` its `owner` is told once (it ends the connection so
 * the client resumes, or ends the stream with an error); producers that can wait use `waitForRoom()`.
 */
export class SseChannel implements AsyncIterableIterator<SseEvent>, QueuedEventSource {
  /**
   * The events waiting for the consumer, oldest first, as a list of `QueuedEvent`s rather than an array: a channel
   * is made per request, and V8 pretenured the array literal that held them (allocated it in the old generation,
   * where it keeps every event it ever held alive through scavenges; see docs/benchmarks.md). What `new` makes
   * from a class is never pretenured.
   */
  private head: QueuedEvent | undefined;
  private tail: QueuedEvent | undefined;
  private queuedBytes = 0;
  private waiter: ((result: IteratorResult<SseEvent>) => void) | undefined;
  private roomWaiters: Array<() => void> | undefined;
  private ended = false;
  private detached = false;
  /**
   * Who is told when the consumer goes away. Nearly every channel has one listener (its stream's), kept without an
   * array: besides saving the allocation, an array made per request here was where V8 chose to pretenure (allocate
   * in the old generation), and everything the listener reached was then promoted with it (see docs/benchmarks.md).
   * `moreDetachListeners` holds the rest, in the order they came; the first slot is used only when there are none.
   */
  private detachListener: (() => void) | undefined;
  private moreDetachListeners: Array<() => void> | undefined;
  /** @internal Told when the consumer goes away and when the queue first holds more than `maxQueuedBytes`. */
  owner: SseChannelOwner | undefined = undefined;
  /** The owner was told of an overflow. */
  private overflowed = false;

  /** @param maxQueuedBytes Bytes of JSON text that may wait for a slow reader; unbounded by default. */
  constructor(private readonly maxQueuedBytes = Number.POSITIVE_INFINITY) {}

  /** False once the consumer has gone or the channel has ended: the event was not queued. */
  push(event: SseEvent): boolean {
    if (this.ended) return false;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
      return true;
    }
    const queued = new QueuedEvent(event);
    if (this.tail) this.tail.next = queued;
    else this.head = queued;
    this.tail = queued;
    this.queuedBytes += sizeOf(event);
    if (this.owner && !this.overflowed && this.waitingBytes > this.maxQueuedBytes) {
      this.overflowed = true;
      this.owner.channelOverflowed(this);
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
    this.releaseRoomWaiters();
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /**
   * Calls `listener` when the consumer goes away (its `return()`), once; several owners may listen (a waiting GET
   * connection is watched by its session and, once adopted, by its stream). Returns the function that removes it.
   */
  onDetach(listener: () => void): () => void {
    if (this.detached) {
      listener();
      return () => undefined;
    }
    if (this.detachListener === undefined && !this.moreDetachListeners?.length) this.detachListener = listener;
    else (this.moreDetachListeners ??= []).push(listener);
    return () => {
      if (this.detachListener === listener) {
        this.detachListener = undefined;
        return;
      }
      const at = this.moreDetachListeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.moreDetachListeners!.splice(at, 1);
    };
  }

  /** Bytes of the events waiting for the consumer. */
  get buffered(): number {
    return this.queuedBytes;
  }

  /**
   * Bytes queued behind the head. The event at the head is the one the reader takes next: it counts as being
   * written, not as waiting, so one message larger than the limit (a big result) goes out to a client that reads;
   * what piles up behind it counts.
   */
  private get waitingBytes(): number {
    return this.head ? this.queuedBytes - sizeOf(this.head.event) : 0;
  }

  /** The first event still waiting for the consumer, if any. */
  peek(): SseEvent | undefined {
    return this.head?.event;
  }

  /**
   * Drops what waits behind the oldest unread event (which stays, being written) and returns the first event
   * dropped, if any. A session stream whose reader fell behind does this before its retry hint or error.
   */
  clearBehindHead(): SseEvent | undefined {
    const head = this.head;
    if (!head) return undefined;
    const firstDropped = head.next?.event;
    head.next = undefined;
    this.tail = head;
    this.queuedBytes = sizeOf(head.event);
    this.releaseRoomWaiters();
    return firstDropped;
  }

  /** Drops every waiting event (a stateless reply replaces them with its error; `return()` as its consumer leaves). */
  clear(): void {
    this.head = undefined;
    this.tail = undefined;
    this.queuedBytes = 0;
    this.releaseRoomWaiters();
  }

  /**
   * Undefined when a producer may go on; otherwise a promise that settles once the reader has taken the queue
   * down to half of `maxQueuedBytes` (or the channel ended). Progress and log calls await it, so a handler that
   * emits faster than its client reads is slowed instead of buffered.
   */
  waitForRoom(): Promise<void> | undefined {
    if (this.ended || this.waitingBytes <= this.maxQueuedBytes / 2) return undefined;
    return new Promise((resolve) => {
      (this.roomWaiters ??= []).push(resolve);
    });
  }

  next(): Promise<IteratorResult<SseEvent>> {
    return new Promise((resolve) => this.whenNext(resolve));
  }

  /**
   * `next()` without a promise, for a reader that has taken what was queued: `receive` is called with the next
   * event (or the end) when it comes, from inside the `push()` or `end()` that brings it. Called with an event
   * already queued, or after the end, it answers at once.
   */
  whenNext(receive: (result: IteratorResult<SseEvent>) => void): void {
    const event = this.takeQueued();
    if (event !== undefined) return receive({ value: event, done: false });
    if (this.ended) return receive({ value: undefined, done: true });
    this.waiter = receive;
  }

  /**
   * The oldest waiting event, taken now, or undefined when none waits: what `next()` would resolve with, without a
   * promise. The HTTP layer writes the events already queued behind the one it awaited in the same write.
   */
  takeQueued(): SseEvent | undefined {
    const head = this.head;
    if (!head) return undefined;
    this.head = head.next;
    if (!this.head) this.tail = undefined;
    head.next = undefined; // a taken entry points at nothing still queued
    const event = head.event;
    this.queuedBytes -= sizeOf(event);
    if (this.roomWaiters && this.waitingBytes <= this.maxQueuedBytes / 2) this.releaseRoomWaiters();
    return event;
  }

  /** True once the channel has ended (or its consumer left) and nothing waits in it: `next()` would be done. */
  get exhausted(): boolean {
    return this.ended && this.head === undefined;
  }

  return(): Promise<IteratorResult<SseEvent>> {
    this.clear();
    this.end();
    if (!this.detached) {
      this.detached = true;
      const first = this.detachListener;
      const more = this.moreDetachListeners;
      this.detachListener = undefined;
      this.moreDetachListeners = undefined;
      first?.();
      if (more) for (const listener of more) listener();
      this.owner?.channelDetached(this);
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }

  private releaseRoomWaiters(): void {
    const waiters = this.roomWaiters;
    if (!waiters) return;
    this.roomWaiters = undefined;
    for (const resolve of waiters) resolve();
  }
}

/** One event in a channel's queue. */
class QueuedEvent {
  next: QueuedEvent | undefined = undefined;

  constructor(readonly event: SseEvent) {}
}

/**
 * The size an event takes in a queue: the length of its JSON text, made now (and kept, so it is written as is)
 * when the sender did not make it already. An event that cannot be serialised counts as nothing here; whoever
 * writes it reports that.
 */
function sizeOf(event: SseEvent): number {
  if (event.data === undefined && event.message !== undefined) {
    try {
      event.data = JSON.stringify(event.message);
    } catch {
      return 0;
    }
  }
  return event.data?.length ?? 0;
}
