/**
 * Items ranked by a whole-number count that changes one step at a time (streams per owner): setting a count and
 * finding an item with the highest count are O(1), where a scan of every item was O(items) per eviction.
 */
export class CountRanking<T> {
  /** `buckets[n]`: the items whose count is n (n ≥ 1), in no particular order. */
  private readonly buckets: T[][] = [];
  /** Each ranked item's place, changed in place as its count moves (no map entry is made or dropped per step). */
  private readonly places = new Map<T, RankPlace>();
  private top = 0;

  /** Sets an item's count; 0 removes it. */
  set(item: T, count: number): void {
    const place = this.places.get(item);
    if (place) {
      if (place.count === count) return;
      this.leaveBucket(place);
      if (count > 0) {
        place.count = count;
        this.joinBucket(item, place);
      } else {
        this.places.delete(item);
      }
    } else if (count > 0) {
      const created = new RankPlace(count);
      this.places.set(item, created);
      this.joinBucket(item, created);
    }
    while (this.top > 0 && (this.buckets[this.top]?.length ?? 0) === 0) this.top--;
  }

  /** An item with the highest count (undefined when there is none), and that count. */
  largest(): { item: T; count: number } | undefined {
    const item = this.buckets[this.top]?.[0];
    return item === undefined ? undefined : { item, count: this.top };
  }

  private joinBucket(item: T, place: RankPlace): void {
    const bucket = (this.buckets[place.count] ??= []);
    place.index = bucket.length;
    bucket.push(item);
    if (place.count > this.top) this.top = place.count;
  }

  /** Takes the item out of its bucket; the bucket's last item fills its slot. */
  private leaveBucket(place: RankPlace): void {
    const bucket = this.buckets[place.count];
    const last = bucket.pop()!;
    if (place.index < bucket.length) {
      bucket[place.index] = last;
      this.places.get(last)!.index = place.index;
    }
  }
}

/** Where an item sits: its count, and its slot in that count's bucket. */
class RankPlace {
  index = 0;
  constructor(public count: number) {}
}
