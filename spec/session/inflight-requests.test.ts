/**
 * InflightRequests (a session's requests in progress, by JSON-RPC id), checked against a Map model over random
 * sequences of sets, deletes and lookups, with ids that are numbers and strings alike (1 and "1" are two ids).
 */
import fc from 'fast-check';
import { InflightRequests } from '../../lib/session/inflight-requests.js';

type Id = string | number;
type Step = { kind: 'set'; id: Id; value: number } | { kind: 'delete'; id: Id } | { kind: 'clear' };

const id: fc.Arbitrary<Id> = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }).map(String));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant<'set'>('set'), id, value: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant<'delete'>('delete'), id }) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'clear' }) },
);

test('set, delete, get, has and size agree with a Map model', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
      const table = new InflightRequests<number>();
      const model = new Map<Id, number>();
      for (const s of steps) {
        if (s.kind === 'set') {
          table.set(s.id, s.value);
          model.set(s.id, s.value);
        } else if (s.kind === 'delete') {
          expect(table.delete(s.id)).toBe(model.delete(s.id));
        } else {
          table.clear();
          model.clear();
        }
        expect(table.size).toBe(model.size);
        for (let n = 0; n <= 12; n++) {
          for (const probe of [n, String(n)]) {
            expect(table.get(probe)).toBe(model.get(probe));
            expect(table.has(probe)).toBe(model.has(probe));
          }
        }
      }
      const sorted = <T>(items: T[]) => [...items].sort((a, b) => String(a).localeCompare(String(b)));
      expect(sorted(table.entries().map(([key, value]) => `${typeof key}:${key}=${value}`))).toEqual(sorted([...model].map(([key, value]) => `${typeof key}:${key}=${value}`)));
      expect(sorted(table.values())).toEqual(sorted([...model.values()]));
    }),
    { seed: 13, numRuns: 300 },
  );
});

test('entries() and values() are copies: deleting while walking them is safe (as a drain does)', () => {
  const table = new InflightRequests<string>();
  for (let i = 0; i < 6; i++) table.set(i, `request ${i}`);
  const seen: string[] = [];
  for (const [requestId, value] of table.entries()) {
    table.delete(requestId);
    seen.push(value);
  }
  expect(seen).toHaveLength(6);
  expect(table.size).toBe(0);
  table.set('a', 'x');
  for (const value of table.values()) table.delete('a') && seen.push(value);
  expect(table.size).toBe(0);
});
