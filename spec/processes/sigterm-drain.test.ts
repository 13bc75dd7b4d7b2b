
import { describeWithRedis, redisUrl } from '../helpers/redis.js';
import { startInstance, usePool, } from './instances.js';
import { endedWithin, eventIdsOf, lastIdOf, newSession, oneTo, progressOf, resume, startSlowCount } from './slow-count-calls.js';

const TRIALS = 20;
const N = 20;
const INTERVAL_MS = 30;

describeWithRedis('SIGTERM while slow_count streams (example processes sharing Redis)', (redis) => {
  const start = (name: string) => startInstance({ name, redisUrl, keyPrefix: redis.runPrefix, leaseTtlMs: 1000, drainTimeoutMs: 5000 });
  const { pool, open } = usePool(['A', 'B', 'C'], start);

  test(`${TRIALS} trials: the client resumes on another instance and gets every progress event and the result, once`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const x = pool[trial % 3];
      const y = pool[(trial + 1) % 3];
      const sessionId = await newSession(y.port);
      const id = 100 + trial;
      const running = await startSlowCount(x.port, sessionId, id, N, INTERVAL_MS);
      open.push(running);
      await running.waitFor(() => progressOf(running.messages()).length >= 3, 10_000);
      x.signal('SIGTERM');
      // Its replacement starts meanwhile (on another port), for the next trial.
      const replacement = start(x.name);
      replacement.catch(() => undefined); // awaited below; a failed trial must not leave it unobserved
      await endedWithin(running, 10_000, `trial ${trial}: the stream of the draining instance ${x.name}`);
      // The draining instance hands the client on: a bare retry hint is the last thing on the stream.
      const last = running.frames().at(-1)!;
      expect({ trial, last }).toEqual({ trial, last: { retry: expect.any(Number), comments: [] } });
      expect(running.messages().some((message) => 'id' in message && message.id === id)).toBe(false);

      const resumed = await resume(y.port, sessionId, lastIdOf(running.frames()));
      open.push(resumed);
      await endedWithin(resumed, 10_000, `trial ${trial}: the resume on ${y.name}`);
      expect(resumed.status).toBe(200);
      const messages = [...running.messages(), ...resumed.messages()];
      expect({ trial, progress: progressOf(messages) }).toEqual({ trial, progress: oneTo(N) });
      expect({ trial, ending: resumed.messages().at(-1) }).toEqual({
        trial,
        ending: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `counted ${N}` }] } },
      });
      const eventIds = [...eventIdsOf(running.frames()), ...eventIdsOf(resumed.frames())];
      expect(new Set(eventIds).size).toBe(eventIds.length);

      // The drained process exits cleanly once its call has finished.
      expect({ trial, exit: await x.exited }).toEqual({ trial, exit: { code: 0, signal: null } });
      expect(x.output()).not.toMatch(/Error|\[redis\]/);
      pool[trial % 3] = await replacement;
    }
  }, 180_000);
});
