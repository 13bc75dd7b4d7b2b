/**
 * Items ranked by a whole-number count that changes one step at a time (streams per owner): setting a count and
 * finding an item with the highest count are O(1), where a scan of every item was O(items) per eviction.
 */
export class CountRanking<T> {
  /** `buckets[n]`: the items whose count is n (n ≥ 1), in no particular order. */
  private readonly buckets: T[][] = [];
  private readonly places = new Map<T, { count: number; index: number }>();
  private top = 0;

  /** Sets an item's count; 0 removes it. */
  set(item: T, count: number): void {
    const place = this.places.get(item);
    if (place) {
      if (place.count === count) return;
      const bucket = this.buckets[place.count];
      const last = bucket.pop()!;
      if (last !== item) {
        bucket[place.index] = last;
        this.places.get(last)!.index = place.index;
      }
      this.places.delete(item);
    }
    if (count > 0) {
      const bucket = (this.buckets[count] ??= []);
      this.places.set(item, { count, index: bucket.length });
      bucket.push(item);
      if (count > this.top) this.top = count;
    }
    while (this.top > 0 && (this.buckets[this.top]?.length ?? 0) === 0) this.top--;
  }

  /** An item with the highest count (undefined when there is none), and that count. */
  largest(): { item: T; count: number } | undefined {
    const item = this.buckets[this.top]?.[0];
    return item === undefined ? undefined : { item, count: this.top };
  }
}
