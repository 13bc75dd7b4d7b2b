import type { ServerResponse } from 'node:http';
import { KEEP_ALIVE_FRAME } from './sse-format.js';

interface Tracked {
  res: ServerResponse;
  lastWrite: number;
}

/**
 * One timer for every open SSE response (not one per response): every `interval / 2` it writes a comment to
 * the responses that have been silent for `interval` ms.
 */
export class KeepAliveTicker {
  private readonly open = new Set<Tracked>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly interval: number) {}

  track(res: ServerResponse): Tracked | undefined {
    if (this.interval <= 0) return undefined;
    const tracked: Tracked = { res, lastWrite: Date.now() };
    this.open.add(tracked);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), Math.max(10, this.interval / 2));
      this.timer.unref();
    }
    return tracked;
  }

  untrack(tracked: Tracked | undefined): void {
    if (tracked) this.open.delete(tracked);
  }

  private tick(): void {
    // The timer stops itself once idle, rather than in untrack: a busy server would otherwise make a timer per request.
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = Date.now();
    for (const tracked of this.open) {
      if (now - tracked.lastWrite >= this.interval && !tracked.res.writableEnded) {
        tracked.res.write(KEEP_ALIVE_FRAME);
        tracked.lastWrite = now;
      }
    }
  }
}

