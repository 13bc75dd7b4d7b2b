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
    expect(inflight.delete(1)).toBe(false);
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
    expect(inflight.delete(1)).toBe(true);
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

  test('list() is a copy: deleting while walking it reaches every request', () => {
    const inflight = new InFlightRequests<Fake>();
    for (const id of [1, 2, 3, 'a']) inflight.add(running(id));
    for (const request of inflight.list()) inflight.delete(request.ctx.requestId);
    expect(inflight.size).toBe(0);
  });

  test('behaves as a Map of id to request over random adds and deletes', () => {
    const id = fc.oneof(fc.integer({ min: -3, max: 6 }), fc.constantFrom('0', '1', 'a', 'b'));
    const step = fc.oneof(fc.record({ add: id }), fc.record({ remove: id }), fc.record({ clear: fc.constant(true) }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const inflight = new InFlightRequests<Fake>();
        const model = new Map<RequestId, Fake>();
        for (const s of steps) {
          if ('add' in s) {
            // Callers add only ids not running (the session refuses a duplicate first).
            if (model.has(s.add)) continue;
            const request = running(s.add);
            inflight.add(request);
            model.set(s.add, request);
          } else if ('remove' in s) {
            expect(inflight.delete(s.remove)).toBe(model.delete(s.remove));
          } else {
            inflight.clear();
            model.clear();
          }
          expect(inflight.size).toBe(model.size);
          for (const key of [-3, -1, 0, 1, 2, 6, '0', '1', 'a', 'b']) {
            expect(inflight.get(key)).toBe(model.get(key));
            expect(inflight.has(key)).toBe(model.has(key));
          }
          expect(new Set(inflight.list())).toEqual(new Set(model.values()));
          expect(inflight.list()).toHaveLength(model.size);
        }
      }),
    );
  });
});
