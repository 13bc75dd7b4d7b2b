/**
 * The contract every `StreamLeases` passes (the in-memory and Redis ones, and yours):
 * `describeStreamLeasesContract('MyLeases', () => new MyLeases())` at the top level of a jest test file.
 */
import type { StreamLeases } from '../store/stream-leases.js';
import { testGlobals } from './test-globals.js';

export interface StreamLeasesContractOptions {
  /** Called after each test with the leases it used (close connections here). Defaults to doing nothing. */
  dispose?: (leases: StreamLeases) => void | Promise<void>;
}

const uniqueStream = (name: string) => `contract-lease-${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeStreamLeasesContract(name: string, create: () => StreamLeases | Promise<StreamLeases>, options: StreamLeasesContractOptions = {}): void {
  const { describe, test, beforeEach, afterEach, expect } = testGlobals();
  describe(`StreamLeases contract: ${name}`, () => {
    let leases: StreamLeases;
    beforeEach(async () => {
      leases = await create();
    });
    afterEach(async () => {
      await options.dispose?.(leases);
    });

    test('a stream never leased is unknown', async () => {
      expect(await leases.inspect(uniqueStream('unknown'))).toBeUndefined();
      expect(await leases.claimLost(uniqueStream('unknown'))).toBe(false);
    });

    test('an acquired lease is held and keeps the request id (string or number)', async () => {
      const text = uniqueStream('held-text');
      const number = uniqueStream('held-number');
      await leases.acquire(text, { requestId: 'req-1' }, 5000, 60_000);
      await leases.acquire(number, { requestId: 42 }, 5000, 60_000);
      expect(await leases.inspect(text)).toEqual({ info: { requestId: 'req-1' }, held: true, released: false });
      expect(await leases.inspect(number)).toEqual({ info: { requestId: 42 }, held: true, released: false });
      expect(await leases.claimLost(text)).toBe(false);
    });

    test('renewal keeps a lease held past its first ttl; without it, it lapses and its loss is claimed exactly once', async () => {
      const renewed = uniqueStream('renewed');
      const lapsed = uniqueStream('lapsed');
      await leases.acquire(renewed, { requestId: 1 }, 300, 60_000);
      await leases.acquire(lapsed, { requestId: 2 }, 300, 60_000);
      for (let i = 0; i < 4; i++) {
        await pause(150);
        await leases.renew([renewed], 300);
      }
      expect((await leases.inspect(renewed))?.held).toBe(true);
      expect(await leases.inspect(lapsed)).toEqual({ info: { requestId: 2 }, held: false, released: false });
      const claims = await Promise.all([leases.claimLost(lapsed), leases.claimLost(lapsed), leases.claimLost(lapsed)]);
      expect(claims.filter(Boolean).length).toBe(1);
      expect(await leases.claimLost(lapsed)).toBe(false);
    });

    test('a lapsed lease is not brought back by a late renewal', async () => {
      const streamId = uniqueStream('late');
      await leases.acquire(streamId, { requestId: 3 }, 100, 60_000);
      await pause(250);
      await leases.renew([streamId], 5000);
      expect((await leases.inspect(streamId))?.held).toBe(false);
    });

    test('a released stream is not held, says so, and its loss cannot be claimed', async () => {
      const streamId = uniqueStream('released');
      await leases.acquire(streamId, { requestId: 'r' }, 5000, 60_000);
      await leases.release(streamId);
      expect(await leases.inspect(streamId)).toEqual({ info: { requestId: 'r' }, held: false, released: true });
      expect(await leases.claimLost(streamId)).toBe(false);
    });
  });
}
