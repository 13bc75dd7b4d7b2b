/** A place in a `LiveList`, held by whoever added the item; `item` is undefined once removed. */
export interface LiveEntry<T> {
  item: T | undefined;
  prev: LiveEntry<T> | undefined;
  next: LiveEntry<T> | undefined;
}

/**
 * The things a long-lived object keeps while they are in progress (the stateless runs a drain must end, the open
 * SSE responses the keep-alive timer visits, the stores still being written): `add` gives an entry, `remove`
 * takes it out in O(1) and is safe to call twice. Items are never undefined (a removed entry's item is).
 *
 * Not a `Set`: a long-lived `Set` whose size swings with every burst of requests (empty, 10 in flight, empty
 * again) makes V8 rebuild its hash table on most bursts. Driven with 10 calls in flight in one process (the
 * harness of bench/in-process.js), whole request graphs were then promoted to the old generation: about 4.5 KB
 * promoted and 36 µs of CPU per stateless call, against 1 KB and 11 µs with a list. Under load from 10
 * connections (bench/run.js, four alternating runs) the stateless call went from 42.7–52.4 to 40.4–46.3 µs of
 * server CPU per request. A removed entry also forgets its item and its neighbours, so that an entry V8 placed
 * in the old generation never keeps a finished request reachable.
 */
export class LiveList<T> {
  private head: LiveEntry<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(item: T): LiveEntry<T> {
    const entry: LiveEntry<T> = { item, prev: undefined, next: this.head };
    if (this.head) this.head.prev = entry;
    this.head = entry;
    this.count++;
    return entry;
  }

  /** Takes an entry of this list out; nothing happens when it was removed already. */
  remove(entry: LiveEntry<T>): void {
    if (entry.item === undefined) return;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    entry.item = undefined;
    entry.prev = undefined;
    entry.next = undefined;
    this.count--;
  }

  /** A copy of the items, newest first: removing entries while walking it is safe. */
  values(): T[] {
    const items: T[] = [];
    for (let entry = this.head; entry; entry = entry.next) items.push(entry.item as T);
    return items;
  }
}
