/**
 * The contract every `TaskStore` passes (the in-memory and Redis stores, and yours):
 * `describeTaskStoreContract('MyTaskStore', () => new MyTaskStore())` at the top level of a jest test file.
 */
import type { TaskRecord, TaskStore } from '../tasks/task-store.js';
import type { StoreTtlCheck } from './event-store-contract.js';
import { testGlobals } from './test-globals.js';

export interface TaskStoreContractOptions {
  /** Called after each test with the store it used (close connections here). Defaults to doing nothing. */
  dispose?: (store: TaskStore) => void | Promise<void>;
  /**
   * Checks of the TTL (a task forgotten `ttlMs` after its last write; `create` gets that TTL, which the suite
   * puts on the tasks it creates). Defaults to none (not checked).
   */
  ttl?: StoreTtlCheck<TaskStore>;
}

const elicit = (message: string) => ({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: {} } } });

export function describeTaskStoreContract(name: string, create: () => TaskStore | Promise<TaskStore>, options: TaskStoreContractOptions = {}): void {
  const { describe, test, beforeEach, afterEach, expect } = testGlobals();
  describe(`TaskStore contract: ${name}`, () => {
    let store: TaskStore;
    let id: (suffix: string) => string;
    let owner: string;
    const task = (taskId: string, overrides: Partial<TaskRecord> = {}): TaskRecord => ({
      taskId,
      owner,
      status: 'working',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUpdatedAt: '2026-01-01T00:00:00.000Z',
      ttlMs: 60_000,
      pollIntervalMs: 500,
      inputRequests: {},
      inputResponses: {},
      ...overrides,
    });
    beforeEach(async () => {
      store = await create();
      // Unique ids and owner per test, so a shared backing service never mixes tests.
      const prefix = `contract-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      id = (suffix) => `${prefix}-${suffix}`;
      owner = `${prefix}-owner`;
    });
    afterEach(async () => {
      await options.dispose?.(store);
    });

    test('an unknown id reads as undefined, and no write creates it', async () => {
      expect(await store.get(id('nobody'))).toBeUndefined();
      expect(await store.addInputRequests(id('nobody'), { a: elicit('a') })).toBe(false);
      expect(await store.answerInputRequests(id('nobody'), { a: { action: 'accept' } })).toEqual([]);
      expect(await store.finish(id('nobody'), { status: 'cancelled' })).toBe(false);
      await store.setStatusMessage(id('nobody'), 'x');
      await store.renewLease(id('nobody'), 1);
      expect(await store.get(id('nobody'))).toBeUndefined();
    });

    test('create then get gives back the same task, not a shared object; a second create of the id fails', async () => {
      const original = task(id('t'), { sessionId: 'session-1', statusMessage: 'starting', leaseExpiresAt: 1_800_000_000_000, inputRequests: { q: elicit('q') }, status: 'input_required' });
      await store.create(original);
      const read = await store.get(id('t'));
      expect(read).toEqual(original);
      read!.inputRequests.changed = elicit('changed');
      expect(await store.get(id('t'))).toEqual(original);
      await expect(store.create(task(id('t')))).rejects.toThrow();
      expect(await store.get(id('t'))).toEqual(original);
    });

    test('ttlMs null is kept as null', async () => {
      await store.create(task(id('t'), { ttlMs: null }));
      expect((await store.get(id('t')))!.ttlMs).toBe(null);
    });

    test('input requests make the task input_required; partial answers leave the rest; all answered is working again', async () => {
      await store.create(task(id('t')));
      expect(await store.addInputRequests(id('t'), { a: elicit('a'), b: elicit('b') })).toBe(true);
      let read = (await store.get(id('t')))!;
      expect(read.status).toBe('input_required');
      expect(read.inputRequests).toEqual({ a: elicit('a'), b: elicit('b') });
      expect(read.lastUpdatedAt).not.toBe('2026-01-01T00:00:00.000Z');
      expect(await store.answerInputRequests(id('t'), { a: { action: 'accept', content: { n: 1 } }, unknown: { action: 'accept' } })).toEqual(['a']);
      read = (await store.get(id('t')))!;
      expect(read.status).toBe('input_required');
      expect(read.inputRequests).toEqual({ b: elicit('b') });
      expect(read.inputResponses).toEqual({ a: { action: 'accept', content: { n: 1 } } });
      // An answered key is not outstanding any more: a second answer is ignored, and it cannot be asked again.
      expect(await store.answerInputRequests(id('t'), { a: { action: 'decline' } })).toEqual([]);
      await store.addInputRequests(id('t'), { a: elicit('again') });
      expect((await store.get(id('t')))!.inputRequests).toEqual({ b: elicit('b') });
      expect(await store.answerInputRequests(id('t'), { b: { action: 'decline' } })).toEqual(['b']);
      read = (await store.get(id('t')))!;
      expect(read.status).toBe('working');
      expect(read.inputRequests).toEqual({});
      expect(read.inputResponses).toEqual({ a: { action: 'accept', content: { n: 1 } }, b: { action: 'decline' } });
    });

    test('status message and lease are recorded', async () => {
      await store.create(task(id('t')));
      await store.setStatusMessage(id('t'), 'half way');
      await store.renewLease(id('t'), 1_900_000_000_000);
      const read = (await store.get(id('t')))!;
      expect(read.statusMessage).toBe('half way');
      expect(read.leaseExpiresAt).toBe(1_900_000_000_000);
    });

    test('finish records the outcome once: the first outcome wins and a terminal task changes no more', async () => {
      await store.create(task(id('done'), { status: 'input_required', inputRequests: { q: elicit('q') } }));
      expect(await store.finish(id('done'), { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }], structuredContent: {} } })).toBe(true);
      expect(await store.finish(id('done'), { status: 'cancelled' })).toBe(false);
      expect(await store.addInputRequests(id('done'), { z: elicit('z') })).toBe(false);
      await store.setStatusMessage(id('done'), 'too late');
      const read = (await store.get(id('done')))!;
      expect(read.status).toBe('completed');
      expect(read.result).toEqual({ content: [{ type: 'text', text: 'ok' }], structuredContent: {} });
      expect(read.inputRequests).toEqual({});
      expect(read.statusMessage).toBeUndefined();

      await store.create(task(id('failed')));
      await store.finish(id('failed'), { status: 'failed', error: { code: -32603, message: 'boom', data: { why: [] } } });
      const failed = (await store.get(id('failed')))!;
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual({ code: -32603, message: 'boom', data: { why: [] } });
      expect(failed.result).toBeUndefined();

      await store.create(task(id('cancelled')));
      await store.finish(id('cancelled'), { status: 'cancelled', statusMessage: 'by the client' });
      const cancelled = (await store.get(id('cancelled')))!;
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.statusMessage).toBe('by the client');
    });

    test('list gives one owner\'s tasks, newest first, in pages', async () => {
      for (let i = 0; i < 5; i++) await store.create(task(id(`t${i}`), { createdAt: `2026-01-01T00:00:0${i}.000Z` }));
      await store.create({ ...task(id('other')), owner: `${owner}-other` });
      const first = await store.list(owner, { limit: 2 });
      expect(first.tasks.map((t) => t.taskId)).toEqual([id('t4'), id('t3')]);
      expect(first.nextCursor).toBeDefined();
      const second = await store.list(owner, { limit: 2, cursor: first.nextCursor });
      expect(second.tasks.map((t) => t.taskId)).toEqual([id('t2'), id('t1')]);
      const last = await store.list(owner, { limit: 2, cursor: second.nextCursor });
      expect(last.tasks.map((t) => t.taskId)).toEqual([id('t0')]);
      expect(last.nextCursor).toBeUndefined();
    });

    const ttl = options.ttl;
    if (ttl) {
      describe(`with ttlMs ${ttl.ttlMs}`, () => {
        let expiring: TaskStore;
        beforeEach(async () => {
          expiring = await ttl.create(ttl.ttlMs);
        });
        afterEach(async () => {
          await options.dispose?.(expiring);
        });
        const part = (fraction: number) => Math.round(ttl.ttlMs * fraction);

        test('a task is kept until ttlMs after its last write, which restarts it; then it reads as undefined', async () => {
          await expiring.create(task(id('t'), { ttlMs: ttl.ttlMs }));
          await ttl.elapse(part(0.6));
          await expiring.addInputRequests(id('t'), { a: elicit('a') });
          await ttl.elapse(part(0.6));
          expect((await expiring.get(id('t')))?.status).toBe('input_required');
          await ttl.elapse(part(0.6));
          expect(await expiring.get(id('t'))).toBeUndefined();
        });
      });
    }
  });
}
