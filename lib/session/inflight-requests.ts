import type { RequestId } from '../protocol/jsonrpc.js';

/**
 * The requests a session is running, by JSON-RPC id: two arrays searched from the newest end, not a `Map`.
 *
 * A session's `Map` of requests swings with the requests in flight (empty, 10, empty again), so V8 rebuilds its
 * hash table on most bursts. Driven with 10 calls in flight on one session in one process (the harness of
 * bench/in-process.js), whole request graphs were then promoted to the old generation: 45 µs of CPU per
 * `tools/call` with the `Map`, 23 µs with these arrays (one call at a time: 24 µs either way). The search is
 * linear, over at most `maxRequestsPerSession` ids (default 100); a session rarely has more than a few requests
 * in flight.
 */
export class InflightRequests<T> {
  private readonly ids: RequestId[] = [];
  private readonly items: T[] = [];

  get size(): number {
    return this.ids.length;
  }

  get(id: RequestId): T | undefined {
    const at = this.indexOf(id);
    return at < 0 ? undefined : this.items[at];
  }

  has(id: RequestId): boolean {
    return this.indexOf(id) >= 0;
  }

  /** Adds a request, or replaces the value of an id already here. */
  set(id: RequestId, value: T): void {
    const at = this.indexOf(id);
    if (at >= 0) {
      this.items[at] = value;
      return;
    }
    this.ids.push(id);
    this.items.push(value);
  }

  /** Removes a request; the last one takes its place (the order is not kept). */
  delete(id: RequestId): boolean {
    const at = this.indexOf(id);
    if (at < 0) return false;
    const last = this.ids.length - 1;
    if (at !== last) {
      this.ids[at] = this.ids[last];
      this.items[at] = this.items[last];
    }
    this.ids.pop();
    this.items.pop();
    return true;
  }

  clear(): void {
    this.ids.length = 0;
    this.items.length = 0;
  }

  /** A copy of the values: deleting while walking it is safe. */
  values(): T[] {
    return this.items.slice();
  }

  /** A copy of the id/value pairs: deleting while walking it is safe. */
  entries(): Array<[RequestId, T]> {
    return this.ids.map((id, i) => [id, this.items[i]]);
  }

  private indexOf(id: RequestId): number {
    const ids = this.ids;
    for (let i = ids.length - 1; i >= 0; i--) if (ids[i] === id) return i;
    return -1;
  }
}
