/**
 * LiveList (what the middleware keeps while it is in progress: stateless runs, open SSE responses, stores being
 * written), checked against a Set model over random sequences of adds and removes, removes of entries already
 * removed included.
 */
import fc from 'fast-check';
import { LiveList, type LiveEntry } from '../../lib/store/live-list.js';

type Step = { kind: 'add' } | { kind: 'remove'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(fc.constant<Step>({ kind: 'add' }), fc.nat().map<Step>((pick) => ({ kind: 'remove', pick })));

test('adds and removes (twice, at times) keep what a Set model keeps', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
      const list = new LiveList<{ n: number }>();
      const entries: Array<LiveEntry<{ n: number }>> = [];
      const model = new Set<number>();
      let next = 0;
      for (const s of steps) {
        if (s.kind === 'add') {
          entries.push(list.add({ n: next }));
          model.add(next++);
        } else if (entries.length > 0) {
          // Any entry ever added, so some are removed a second time: that must change nothing.
          const at = s.pick % entries.length;
          const item = entries[at].item;
          list.remove(entries[at]);
          if (item) model.delete(item.n);
        }
        expect(list.size).toBe(model.size);
      }
      expect(new Set(list.values().map((item) => item.n))).toEqual(model);
      expect(list.values()).toHaveLength(model.size);
    }),
    { seed: 13, numRuns: 300 },
  );
});

test('a removed entry forgets its item and its neighbours (nothing of a finished request stays reachable from it)', () => {
  const list = new LiveList<object>();
  const first = list.add({});
  const second = list.add({});
  const third = list.add({});
  list.remove(second);
  expect(second).toEqual({ item: undefined, prev: undefined, next: undefined });
  expect(list.values()).toEqual([third.item, first.item]);
  list.remove(third);
  list.remove(first);
  expect(first).toEqual({ item: undefined, prev: undefined, next: undefined });
  expect(list.size).toBe(0);
  expect(list.values()).toEqual([]);
});

test('values() is a copy: removing entries while walking it is safe', () => {
  const list = new LiveList<() => void>();
  const entries: Array<LiveEntry<() => void>> = [];
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) {
    const entry = list.add(() => {
      ran.push(i);
      list.remove(entry); // as a stateless run ended by a drain removes itself
    });
    entries.push(entry);
  }
  for (const fail of list.values()) fail();
  expect(ran.sort()).toEqual([0, 1, 2, 3, 4]);
  expect(list.size).toBe(0);
});
