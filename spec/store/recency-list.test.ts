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

test('append() links a node the caller made (its own value), and removing a node twice leaves the list as it was', () => {
  class Entry implements RecencyNode<Entry> {
    older: RecencyNode<Entry> | undefined;
    newer: RecencyNode<Entry> | undefined;
    constructor(readonly name: string) {}
    get value(): Entry {
      return this;
    }
  }
  const list = new RecencyList<Entry>();
  const [a, b, c] = ['a', 'b', 'c'].map((name) => new Entry(name));
  for (const entry of [a, b, c]) list.append(entry);
  expect([...list.values()].map((e) => e.name)).toEqual(['a', 'b', 'c']);
  list.remove(b);
  list.remove(b);
  list.remove(a);
  list.remove(a);
  expect([...list.values()].map((e) => e.name)).toEqual(['c']);
  expect(list.size).toBe(1);
  expect(list.oldest()).toBe(c);
  list.remove(c);
  list.remove(c);
  expect(list.size).toBe(0);
  expect(list.oldest()).toBeUndefined();
  list.append(b);
  expect([...list.values()]).toEqual([b]);
});
