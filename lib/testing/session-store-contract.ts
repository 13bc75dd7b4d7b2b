/**
 * The contract every `SessionStore` passes (the in-memory and Redis stores, and yours):
 * `describeSessionStoreContract('MySessionStore', () => new MySessionStore())` at the top level of a jest test file.
 */
import type { SessionState } from '../store/session-state.js';
import type { SessionStore } from '../store/session-store.js';
import type { StoreTtlCheck } from './event-store-contract.js';
import { testGlobals } from './test-globals.js';

export interface SessionStoreContractOptions {
  /** Called after each test with the store it used (close connections here). Defaults to doing nothing. */
  dispose?: (store: SessionStore) => void | Promise<void>;
  /** Checks of the store's TTL (a session forgotten `ttlMs` after its last write). Defaults to none (not checked). */
  ttl?: StoreTtlCheck<SessionStore>;
}

function state(overrides: Partial<SessionState> = {}): SessionState {
  return {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'contract', version: '1.0.0' },
    clientCapabilities: { elicitation: {}, roots: { listChanged: true } },
    subscriptions: ['test://a'],
    initializeParams: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'contract', version: '1.0.0' } },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function describeSessionStoreContract(name: string, create: () => SessionStore | Promise<SessionStore>, options: SessionStoreContractOptions = {}): void {
  const { describe, test, beforeEach, afterEach, expect } = testGlobals();
  describe(`SessionStore contract: ${name}`, () => {
    let store: SessionStore;
    let id: (suffix: string) => string;
    beforeEach(async () => {
      store = await create();
      // Unique session ids per test, so a shared backing service never mixes tests.
      const prefix = `contract-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      id = (suffix) => `${prefix}-${suffix}`;
    });
    afterEach(async () => {
      await options.dispose?.(store);
    });

    test('an unknown id loads as undefined', async () => {
      expect(await store.load(id('nobody'))).toBeUndefined();
    });

    test('store then load gives back the same data, not a shared object', async () => {
      const original = state({ logLevel: 'warning', principal: 'client-1' });
      await store.store(id('s'), original);
      const loaded = await store.load(id('s'));
      expect(loaded).toEqual(original);
      loaded!.subscriptions.push('test://mutated');
      expect((await store.load(id('s')))!.subscriptions).toEqual(['test://a']);
    });

    test('a later store replaces the earlier state', async () => {
      await store.store(id('s'), state());
      await store.store(id('s'), state({ logLevel: 'debug', subscriptions: [] }));
      expect(await store.load(id('s'))).toEqual(state({ logLevel: 'debug', subscriptions: [] }));
    });

    test('sessions are independent, and delete removes only its own', async () => {
      await store.store(id('one'), state({ principal: 'one' }));
      await store.store(id('two'), state({ principal: 'two' }));
      await store.delete(id('one'));
      expect(await store.load(id('one'))).toBeUndefined();
      expect((await store.load(id('two')))?.principal).toBe('two');
      await expect(store.delete(id('never-stored'))).resolves.toBeUndefined();
    });

    const ttl = options.ttl;
    if (ttl) {
      describe(`with ttlMs ${ttl.ttlMs}`, () => {
        let expiring: SessionStore;
        beforeEach(async () => {
          expiring = await ttl.create(ttl.ttlMs);
        });
        afterEach(async () => {
          await options.dispose?.(expiring);
        });
        const part = (fraction: number) => Math.round(ttl.ttlMs * fraction);

        test('a session is kept until ttlMs after its last write, then loads as undefined', async () => {
          await expiring.store(id('s'), state());
          await ttl.elapse(part(0.5));
          expect(await expiring.load(id('s'))).toEqual(state());
          await ttl.elapse(part(0.7));
          expect(await expiring.load(id('s'))).toBeUndefined();
        });

        test('every write restarts the TTL', async () => {
          await expiring.store(id('s'), state());
          await ttl.elapse(part(0.6));
          await expiring.store(id('s'), state({ logLevel: 'info' }));
          await ttl.elapse(part(0.6));
          // ttlMs after the first write, but not after the second: the session is still there.
          expect(await expiring.load(id('s'))).toEqual(state({ logLevel: 'info' }));
          await ttl.elapse(part(0.6));
          expect(await expiring.load(id('s'))).toBeUndefined();
        });

        test('a load does not restart the TTL', async () => {
          await expiring.store(id('s'), state());
          await ttl.elapse(part(0.6));
          expect(await expiring.load(id('s'))).toEqual(state());
          await ttl.elapse(part(0.6));
          expect(await expiring.load(id('s'))).toBeUndefined();
        });
      });
    }
  });
}
