import type { RequestId } from '../protocol/jsonrpc.js';

/** What the collection needs of a running request: its id. */
interface Running {
  readonly ctx: { readonly requestId: RequestId };
}

/**
 * The requests running in one session, by id. Most sessions run one request at a time: that one is kept in a field
 * of its own, and a `Map` holds the others only while more run at once (made when a second one starts, dropped
 * when the last of them ends). A `Map` that gains and loses its only key
 * per request makes V8 reallocate its table on every delete (the delete's shrink check, `Runtime_MapShrink`), in the
 * old generation where a session lives: about 3 % of a session call's CPU in process (docs/benchmarks.md).
 */
export class InFlightRequests<T extends Running> {
  private sole: T | undefined = undefined;
  private more: Map<RequestId, T> | undefined = undefined;

  /** Requests running. */
  get size(): number {
    return (this.sole === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  get(requestId: RequestId): T | undefined {
    const sole = this.sole;
    if (sole !== undefined && sole.ctx.requestId === requestId) return sole;
    return this.more?.get(requestId);
  }

  has(requestId: RequestId): boolean {
    return this.get(requestId) !== undefined;
  }

  /** Adds a request; its id must not be running already (see `has`). */
  add(request: T): void {
    if (this.sole === undefined) this.sole = request;
    else (this.more ??= new Map()).set(request.ctx.requestId, request);
  }

  /** False when no request of that id runs. */
  delete(requestId: RequestId): boolean {
    if (this.sole !== undefined && this.sole.ctx.requestId === requestId) {
      this.sole = undefined;
      return true;
    }
    const more = this.more;
    if (more === undefined) return false;
    // Its last one goes with the Map itself, not by a delete that would shrink its table (see above): the next
    // burst of concurrent requests gets a young Map.
    if (more.size === 1) {
      if (!more.has(requestId)) return false;
      this.more = undefined;
      return true;
    }
    return more.delete(requestId);
  }

  clear(): void {
    this.sole = undefined;
    this.more = undefined;
  }

  /** The running requests, as a new array (callers may delete while they walk it). */
  list(): T[] {
    const all = this.more === undefined ? [] : [...this.more.values()];
    if (this.sole !== undefined) all.unshift(this.sole);
    return all;
  }
}
