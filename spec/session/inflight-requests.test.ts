/**
 * A session's running requests: the one a session usually runs in a field of its own, more in a Map. Checked against
 * a Map as the model over random sequences, and, through a real session, that concurrent calls each get their own
 * answer and that a cancellation reaches the right one whichever slot it sits in.
 */
import fc from 'fast-check';
import type { RequestId } from '../../lib/protocol/jsonrpc.js';
import { InFlightRequests } from '../../lib/session/inflight-requests.js';

interface Fake {
  readonly ctx: { readonly requestId: RequestId };
}

const running = (requestId: RequestId): Fake => ({ ctx: { requestId } });

describe('InFlightRequests', () => {
  test('one request sits alone; more go beside it; ids 1 and "1" are two requests', () => {
    const inflight = new InFlightRequests<Fake>();
    expect(inflight.size).toBe(0);
    expect(inflight.get(1)).toBeUndefined();
    expect(inflight.delete(1)).toBeUndefined();
    const one = running(1);
    const oneText = running('1');
    const two = running(2);
    inflight.add(one);
    inflight.add(oneText);
    inflight.add(two);
    expect(inflight.size).toBe(3);
    expect(inflight.get(1)).toBe(one);
    expect(inflight.get('1')).toBe(oneText);
    expect(inflight.has(2)).toBe(true);
    expect(inflight.has('2')).toBe(false);
    // The request in the field goes first: the others stay found, and the next one takes the field.
    expect(inflight.delete(1)).toBe(one);
    expect(inflight.get(1)).toBeUndefined();
    expect(inflight.get('1')).toBe(oneText);
    expect(inflight.size).toBe(2);
    const three = running(3);
    inflight.add(three);
    expect(inflight.list()).toEqual([three, oneText, two]);
    inflight.clear();
    expect(inflight.size).toBe(0);
    expect(inflight.list()).toEqual([]);
  });

  test('list() is a copy: deleting while walking it reaches every request, few or many', () => {
    for (const count of [4, 100]) {
      const inflight = new InFlightRequests<Fake>();
      for (let id = 0; id < count; id++) inflight.add(running(id));
      expect(inflight.size).toBe(count);
      expect(inflight.get(count - 1)?.ctx.requestId).toBe(count - 1);
      for (const request of inflight.list()) inflight.delete(request.ctx.requestId);
      expect(inflight.size).toBe(0);
      expect(inflight.get(0)).toBeUndefined();
    }
  });

  test('behaves as a Map of id to request over random adds and deletes, past the array into its Map and back', () => {
    // Up to 45 ids at once: more than the 32 that sit in the array beside the field, so the Map is made and dropped.
    const id = fc.noBias(fc.oneof({ weight: 11, arbitrary: fc.integer({ min: -3, max: 40 }) }, { weight: 1, arbitrary: fc.constantFrom('0', '1', 'a', 'b') }));
    const step = fc.oneof(
      { weight: 30, arbitrary: fc.record({ add: id }) },
      { weight: 12, arbitrary: fc.record({ remove: id, only: fc.constantFrom('none', 'itself', 'stranger') }) },
      { weight: 1, arbitrary: fc.record({ clear: fc.constant(true) }) },
    );
    const keys: RequestId[] = [...Array.from({ length: 44 }, (_, i) => i - 3), '0', '1', 'a', 'b', '40', 41];
    let deepest = 0;
    fc.assert(
      // Each run starts with up to 44 requests already running (so some start past the array), then walks.
      fc.property(fc.nat({ max: 44 }), fc.array(step, { minLength: 50, maxLength: 300 }), (running0, walk) => {
        const inflight = new InFlightRequests<Fake>();
        const model = new Map<RequestId, Fake>();
        const steps = [...Array.from({ length: running0 }, (_, i) => ({ add: i - 3 })), ...walk];
        for (const s of steps) {
          if ('add' in s) {
            // Callers add only ids not running (the session refuses a duplicate first).
            if (model.has(s.add)) continue;
            const request = running(s.add);
            inflight.add(request);
            model.set(s.add, request);
          } else if ('remove' in s) {
            // `only`: the running request itself removes it; another request of the same id (one that ended) nothing.
            const current = model.get(s.remove);
            if (s.only === 'stranger') {
              expect(inflight.delete(s.remove, running(s.remove))).toBeUndefined();
            } else {
              expect(inflight.delete(s.remove, s.only === 'itself' ? current : undefined)).toBe(current);
              model.delete(s.remove);
            }
          } else {
            inflight.clear();
            model.clear();
          }
          expect(inflight.size).toBe(model.size);
          expect(keys.filter((key) => inflight.get(key) !== model.get(key) || inflight.has(key) !== model.has(key))).toEqual([]);
          deepest = Math.max(deepest, model.size);
          expect(new Set(inflight.list())).toEqual(new Set(model.values()));
          expect(inflight.list()).toHaveLength(model.size);
        }
      }),
    );
    expect(deepest).toBeGreaterThan(33); // the Map was used
  });
});
