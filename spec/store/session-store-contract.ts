/**
 * The contract every SessionStore must pass: `describeSessionStoreContract('MyStore', () => new MyStore())`.
 */
import type { SessionState, SessionStore } from '../../lib/index.js';

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

export function describeSessionStoreContract(name: string, create: () => SessionStore | Promise<SessionStore>, dispose?: (store: SessionStore) => Promise<void>): void {
  describe(`SessionStore contract: ${name}`, () => {
    let store: SessionStore;
    let id: (suffix: string) => string;
    beforeEach(async () => {
      store = await create();
      const prefix = `contract-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      id = (suffix) => `${prefix}-${suffix}`;
    });
    afterEach(async () => {
      if (dispose) await dispose(store);
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
  });
}
