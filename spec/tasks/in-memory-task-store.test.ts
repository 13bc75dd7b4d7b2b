import { InMemoryTaskStore, type TaskRecord } from '../../lib/index.js';
import { describeTaskStoreContract } from '../../lib/testing/index.js';

/** The in-memory store reads `Date.now()`: its TTL check lets time pass on jest's fake clock. */
const fakeClock = { elapse: async (ms: number) => void jest.advanceTimersByTime(ms) };

describe('on a fake clock', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  describeTaskStoreContract('InMemoryTaskStore', () => new InMemoryTaskStore(), {
    ttl: { ttlMs: 60_000, create: () => new InMemoryTaskStore(), ...fakeClock },
  });
});

describe('InMemoryTaskStore maxTasks', () => {
  const task = (taskId: string, status: TaskRecord['status'] = 'working'): TaskRecord => ({
    taskId,
    owner: 'o',
    status,
    createdAt: new Date().toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: 60_000,
    inputRequests: {},
    inputResponses: {},
  });

  test('a new task pushes out the oldest finished one; when all are running, creating fails with a clear error', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 2 });
    await store.create(task('done', 'completed'));
    await store.create(task('running'));
    await store.create(task('new'));
    expect(await store.get('done')).toBeUndefined();
    expect(store.size).toBe(2);
    await expect(store.create(task('one-too-many'))).rejects.toThrow(/maxTasks/);
  });

  test('maxTasks must be a positive integer', () => {
    expect(() => new InMemoryTaskStore({ maxTasks: 0 })).toThrow(RangeError);
  });
});
