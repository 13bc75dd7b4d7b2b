/**
 * RecencyList (the order InMemoryEventStore keeps its streams in), checked against a plain array model over random
 * sequences of adds, touches and removes.
 */
import fc from 'fast-check';
import { RecencyList, type RecencyNode } from '../../lib/store/recency-list.js';

type Step = { kind: 'add' } | { kind: 'touch'; pick: number } | { kind: 'remove'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'add' }),
  fc.nat().map<Step>((pick) => ({ kind: 'touch', pick })),
  fc.nat().map<Step>((pick) => ({ kind: 'remove', pick })),
);

test('adds, touches and removes keep the order an array model keeps, oldest first', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
      const list = new RecencyList<number>();
      const nodes = new Map<number, RecencyNode<number>>();
      let model: number[] = [];
      let next = 0;
      for (const s of steps) {
        if (s.kind === 'add') {
          nodes.set(next, list.add(next));
          model.push(next++);
          continue;
        }
        if (model.length === 0) continue;
        const item = model[s.pick % model.length];
        model = model.filter((each) => each !== item);
        if (s.kind === 'touch') {
          list.touch(nodes.get(item)!);
          model.push(item);
        } else {
          list.remove(nodes.get(item)!);
          nodes.delete(item);
        }
      }
      expect([...list.values()]).toEqual(model);
      expect(list.size).toBe(model.length);
      expect(list.oldest()).toBe(model[0]);
      expect(list.oldest(model[0])).toBe(model[1]);
    }),
    { seed: 13, numRuns: 300 },
  );
});

test('values() lets the caller remove the item it just got (the TTL sweep does)', () => {
  const list = new RecencyList<string>();
  const nodes = ['a', 'b', 'c', 'd'].map((value) => list.add(value));
  const seen: string[] = [];
  for (const value of list.values()) {
    seen.push(value);
    if (value !== 'c') list.remove(nodes[['a', 'b', 'c', 'd'].indexOf(value)]);
  }
  expect(seen).toEqual(['a', 'b', 'c', 'd']);
  expect([...list.values()]).toEqual(['c']);
  expect(list.size).toBe(1);
});
