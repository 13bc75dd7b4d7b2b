import { InMemoryEventStore, InMemorySessionStore } from '../../lib/index.js';
import { describeEventStoreContract } from './event-store-contract.js';
import { describeSessionStoreContract } from './session-store-contract.js';

describeEventStoreContract('InMemoryEventStore', () => new InMemoryEventStore());
describeSessionStoreContract('InMemorySessionStore', () => new InMemorySessionStore());

test('InMemorySessionStore forgets a session ttlMs after its last write', async () => {
  const store = new InMemorySessionStore({ ttlMs: 40 });
  await store.store('s', {
    protocolVersion: '2025-11-25',
    clientCapabilities: {},
    subscriptions: [],
    initializeParams: {},
    createdAt: 0,
  });
  expect(await store.load('s')).toBeDefined();
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(await store.load('s')).toBeUndefined();
});
