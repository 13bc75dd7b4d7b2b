/**
 * Contract test suites for stores: `import { describeEventStoreContract, describeSessionStoreContract } from
 * 'mcp-express/testing'`. They are the suites the built-in in-memory and Redis stores pass. Each call registers a
 * `describe` block of tests with the test runner's globals (`describe`, `test`, `beforeEach`, `afterEach`,
 * `expect`), so call them at the top level of a jest test file (or under a runner with jest-style globals, e.g.
 * vitest with `globals: true`). This module imports no test framework and nothing of it runs in production.
 */
export { describeEventStoreContract, type EventStoreContractOptions, type StoreTtlCheck } from './event-store-contract.js';
export { describeSessionStoreContract, type SessionStoreContractOptions } from './session-store-contract.js';
export { describeMessageBusContract, type MessageBusContractOptions, type MessageBusPair } from './message-bus-contract.js';
export { describeStreamLeasesContract, type StreamLeasesContractOptions } from './stream-leases-contract.js';
export { describeTaskStoreContract, type TaskStoreContractOptions } from './task-store-contract.js';
