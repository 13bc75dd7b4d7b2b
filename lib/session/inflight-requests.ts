import type { RequestId } from '../protocol/jsonrpc.js';

/** What the collection needs of a running request: its id. */
interface Running {
  readonly ctx: { readonly requestId: RequestId };
}

/** Most requests kept beside the first in an array searched from its start; past it, in a `Map` until all end. */
const MAX_SCANNED = 32;

/**
 * The requests running in one session, by id. Most sessions run one request at a time: that one is kept in a field
 * of its own; the others, while more run at once, in an array searched from its start, or, past `MAX_SCANNED` of
 * them (a session may run `maxRequestsPerSession`, 100 by default), in a `Map` until they have all ended. A `Map`
 * that gains and loses a key per request makes V8 make new tables for it (on a delete that leaves it under half
 * full, `Runtime_MapShrink`, and every few deletes that leave holes), in the old generation where a session lives:
 * that cost a session call about 12 % of its CPU in process, one call at a time (docs/benchmarks.md, "Collections
 * that churn"), and 470 ns per request with ten at once, where the array takes 80.
 */
export class InFlightRequests<T extends Running> {
  private sole: T | undefined = undefined;
  private more: T[] | undefined = undefined;
  private many: Map<RequestId, T> | undefined = undefined;

  /** Requests running. */
  get size(): number {
    return (this.sole === undefined ? 0 : 1) + (this.more?.length ?? 0) + (this.many?.size ?? 0);
  }

  get(requestId: RequestId): T | undefined {
    const sole = this.sole;
    if (sole !== undefined && sole.ctx.requestId === requestId) return sole;
    const more = this.more;
    if (more !== undefined) {
      for (let i = 0; i < more.length; i++) if (more[i].ctx.requestId === requestId) return more[i];
      return undefined;
    }
    return this.many?.get(requestId);
  }

  has(requestId: RequestId): boolean {
    return this.get(requestId) !== undefined;
  }

  /** Adds a request; its id must not be running already (see `has`). */
  add(request: T): void {
    if (this.sole === undefined) {
      this.sole = request;
    } else if (this.many !== undefined) {
      this.many.set(request.ctx.requestId, request);
    } else if (this.more === undefined) {
      this.more = [request];
    } else if (this.more.length < MAX_SCANNED) {
      this.more.push(request);
    } else {
      this.many = new Map(this.more.map((each) => [each.ctx.requestId, each]));
      this.many.set(request.ctx.requestId, request);
      this.more = undefined;
    }
  }

  /**
   * Removes the request of that id and returns it; undefined when none runs. With `only`, only when the request of
   * that id is `only` (a request that ended, whose id a later request may have taken since).
   */
  delete(requestId: RequestId, only?: T): T | undefined {
    const sole = this.sole;
    if (sole !== undefined && sole.ctx.requestId === requestId) {
      if (only !== undefined && sole !== only) return undefined;
      this.sole = undefined;
      return sole;
    }
    const more = this.more;
    if (more !== undefined) {
      for (let i = 0; i < more.length; i++) {
        const found = more[i];
        if (found.ctx.requestId !== requestId) continue;
        if (only !== undefined && found !== only) return undefined;
        // The last one takes its place (order does not matter); the array goes with its last request.
        const last = more.pop()!;
        if (i < more.length) more[i] = last;
        else if (more.length === 0) this.more = undefined;
        return found;
      }
      return undefined;
    }
    const many = this.many;
    const found = many?.get(requestId);
    if (found === undefined || (only !== undefined && found !== only)) return undefined;
    many!.delete(requestId);
    if (many!.size === 0) this.many = undefined;
    return found;
  }

  clear(): void {
    this.sole = undefined;
    this.more = undefined;
    this.many = undefined;
  }

  /** The running requests, as a new array (callers may delete while they walk it). */
  list(): T[] {
    const all = this.more !== undefined ? [...this.more] : this.many !== undefined ? [...this.many.values()] : [];
    if (this.sole !== undefined) all.unshift(this.sole);
    return all;
  }
}
