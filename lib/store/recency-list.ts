/** A place in a `RecencyList`, held by whoever owns the item (so moving or removing it needs no search). */
export interface RecencyNode<T> {
  readonly value: T;
  older: RecencyNode<T> | undefined;
  newer: RecencyNode<T> | undefined;
}

/** The node `add` makes: a class, so that V8 never pretenures it as an allocation site (see docs/benchmarks.md). */
class RecencyListNode<T> implements RecencyNode<T> {
  older: RecencyNode<T> | undefined = undefined;
  newer: RecencyNode<T> | undefined = undefined;
  constructor(readonly value: T) {}
}

/**
 * Items in the order they were last touched, oldest first: append, touch (move to the newest end), remove and the
 * oldest item in O(1), with no allocation beyond the node (none for `append`). A `Map` kept in that order (delete,
 * then set again) does the same in theory, but V8 leaves a hole for every deleted entry until the table is rebuilt,
 * and iterating from the oldest end walks over those holes: under steady churn that made finding the oldest item
 * cost as much as the rest of a store write. Per-request registries use it instead of a `Set` too: a `Set` that
 * each request joins and leaves makes a new hash table whenever it goes between empty and non-empty.
 */
export class RecencyList<T> {
  private oldestNode: RecencyNode<T> | undefined;
  private newestNode: RecencyNode<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Appends `value` as the newest item; keep the node to touch or remove it. */
  add(value: T): RecencyNode<T> {
    const node = new RecencyListNode(value);
    this.append(node);
    return node;
  }

  /** Appends a node the caller made (an object that is its own node: `value` is itself), as the newest item. */
  append(node: RecencyNode<T>): void {
    node.older = this.newestNode;
    node.newer = undefined;
    if (this.newestNode) this.newestNode.newer = node;
    else this.oldestNode = node;
    this.newestNode = node;
    this.count++;
  }

  /** Makes a node of this list the newest. */
  touch(node: RecencyNode<T>): void {
    if (node === this.newestNode) return;
    this.unlink(node);
    node.older = this.newestNode;
    node.newer = undefined;
    this.newestNode!.newer = node;
    this.newestNode = node;
  }

  /** Removes a node of this list; a node already removed is left alone. */
  remove(node: RecencyNode<T>): void {
    if (node.older === undefined && node.newer === undefined && node !== this.oldestNode) return;
    this.unlink(node);
    node.older = undefined;
    node.newer = undefined;
    this.count--;
  }

  /** Forgets every item (their nodes are left as they are). */
  clear(): void {
    this.oldestNode = undefined;
    this.newestNode = undefined;
    this.count = 0;
  }

  /** The least recently touched item, skipping `except` (at most one step further). */
  oldest(except?: T): T | undefined {
    const node = this.oldestNode;
    if (node && node.value === except) return node.newer?.value;
    return node?.value;
  }

  /** The node of the most recently touched item, if any: its `older` links lead to the oldest (newest first). */
  newest(): RecencyNode<T> | undefined {
    return this.newestNode;
  }

  /** Oldest first. Removing the item just yielded is allowed. */
  *values(): IterableIterator<T> {
    let node = this.oldestNode;
    while (node) {
      const next = node.newer;
      yield node.value;
      node = next;
    }
  }

  private unlink(node: RecencyNode<T>): void {
    if (node.older) node.older.newer = node.newer;
    else this.oldestNode = node.newer;
    if (node.newer) node.newer.older = node.older;
    else this.newestNode = node.older;
  }
}
