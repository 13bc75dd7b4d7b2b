/**
 * CountRanking (how InMemoryEventStore finds the owner with the most streams), checked against a Map model over
 * random sequences of count changes.
 */
import fc from 'fast-check';
import { CountRanking } from '../../lib/store/count-ranking.js';

test('largest() always gives an item with the highest count, as a scan of a model would', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: -1, max: 1 })), { maxLength: 300 }), (steps) => {
      const ranking = new CountRanking<number>();
      const model = new Map<number, number>();
      for (const [item, delta] of steps) {
        const count = Math.max(0, (model.get(item) ?? 0) + delta); // counts move one step at a time
        if (count === 0) model.delete(item);
        else model.set(item, count);
        ranking.set(item, count);
        const highest = Math.max(0, ...model.values());
        const largest = ranking.largest();
        if (highest === 0) {
          expect(largest).toBeUndefined();
        } else {
          expect(largest?.count).toBe(highest);
          expect(model.get(largest!.item)).toBe(highest);
        }
      }
    }),
    { seed: 13, numRuns: 300 },
  );
});

test('an item set to 0 is gone; setting the same count twice changes nothing', () => {
  const ranking = new CountRanking<string>();
  ranking.set('a', 1);
  ranking.set('a', 2);
  ranking.set('a', 2);
  ranking.set('b', 1);
  expect(ranking.largest()).toEqual({ item: 'a', count: 2 });
  ranking.set('a', 0);
  expect(ranking.largest()).toEqual({ item: 'b', count: 1 });
  ranking.set('b', 0);
  expect(ranking.largest()).toBeUndefined();
});
