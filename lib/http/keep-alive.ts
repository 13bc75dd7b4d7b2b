import type { ServerResponse } from 'node:http';
import { RecencyList, type RecencyNode } from '../store/recency-list.js';
import { KEEP_ALIVE_FRAME } from './sse-format.js';

/**
 * An open SSE response the ticker watches; its writer sets `lastWrite` on every write. It is its own node in the
 * ticker's list, so tracking a response makes one object and no `Set` entry (see `RecencyList`).
 */
export class TrackedResponse implements RecencyNode<TrackedResponse> {
  older: RecencyNode<TrackedResponse> | undefined = undefined;
  newer: RecencyNode<TrackedResponse> | undefined = undefined;
  constructor(
    readonly res: ServerResponse,
    /** `Date.now()` of its last write. */
    public lastWrite: number,
  ) {}

  get value(): TrackedResponse {
    return this;
  }
}

/**
 * One timer for every open SSE response (not one per response): every `interval / 2` it writes a comment to
 * the responses that have been silent for `interval` ms.
 */
export class KeepAliveTicker {
  private readonly open = new RecencyList<TrackedResponse>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly interval: number) {}

  track(res: ServerResponse): TrackedResponse | undefined {
    if (this.interval <= 0) return undefined;
    const tracked = new TrackedResponse(res, Date.now());
    this.open.append(tracked);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), Math.max(10, this.interval / 2));
      this.timer.unref();
    }
    return tracked;
  }

  untrack(tracked: TrackedResponse | undefined): void {
    if (tracked) this.open.remove(tracked);
  }

  private tick(): void {
    // The timer stops itself once idle, rather than in untrack: a busy server would otherwise make a timer per request.
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = Date.now();
    for (const tracked of this.open.values()) {
      if (now - tracked.lastWrite >= this.interval && !tracked.res.writableEnded) {
        tracked.res.write(KEEP_ALIVE_FRAME);
        tracked.lastWrite = now;
      }
    }
  }
}
