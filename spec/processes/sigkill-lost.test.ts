
import { describeWithRedis, redisUrl } from '../helpers/redis.js';
import { startInstance, usePool, } from './instances.js';
import { endedWithin, eventIdsOf, lastIdOf, newSession, oneTo, progressOf, resume, startSlowCount } from './slow-count-calls.js';

const TRIALS = 20;
const LEASE_TTL_MS = 1000;
/** Time for a resume to end after the lease lapsed: generous, the machine is shared; only a hang fails. */
const MARGIN_MS = 5000;

describeWithRedis('SIGKILL while slow_count streams (example processes sharing Redis)', (redis) => {
  const start = (name: string) => startInstance({ name, redisUrl, keyPrefix: redis.runPrefix, leaseTtlMs: LEASE_TTL_MS });
  const { pool, open } = usePool(['A', 'B', 'C'], start);

  test(`${TRIALS} trials: the resume elsewhere gets every stored event once, then the lost-request error`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const [x, y, z] = [pool[trial % 3], pool[(trial + 1) % 3], pool[(trial + 2) % 3]];
      const sessionId = await newSession(y.port);
      const id = 200 + trial;
      const running = await startSlowCount(x.port, sessionId, id, 100_000, 10);
      open.push(running);
      await running.waitFor(() => progressOf(running.messages()).length >= 3, 10_000);
      x.signal('SIGKILL');
      await endedWithin(running, 10_000, `trial ${trial}: the stream of the killed instance ${x.name}`);
      expect({ trial, exit: await x.exited }).toEqual({ trial, exit: { code: null, signal: 'SIGKILL' } });
      // Its replacement starts meanwhile (on another port), for the next trial.
      const replacement = start(x.name);
      replacement.catch(() => undefined); // awaited below; a failed trial must not leave it unobserved
      const before = progressOf(running.messages());

      const resumed = await resume(y.port, sessionId, lastIdOf(running.frames()));
      open.push(resumed);
      await endedWithin(resumed, LEASE_TTL_MS + MARGIN_MS, `trial ${trial}: the resume on ${y.name}`);
      expect(resumed.status).toBe(200);
      const ending = resumed.messages().at(-1);
      expect({ trial, ending }).toEqual({
        trial,
        ending: { jsonrpc: '2.0', id, error: { code: -32603, message: expect.stringMatching(/instance .* was lost/) } },
      });
      // What the client got before the kill and on the resume: progress 1..k, each once, in order.
      const progress = [...before, ...progressOf(resumed.messages())];
      expect({ trial, progress }).toEqual({ trial, progress: oneTo(progress.length) });
      expect(progress.length).toBeGreaterThanOrEqual(3);
      const eventIds = [...eventIdsOf(running.frames()), ...eventIdsOf(resumed.frames())];
      expect(new Set(eventIds).size).toBe(eventIds.length);

      // Every stored event: a resume from the stream's first event (its priming event) on the third instance gets
      // the same progress and the same ending, with the same event id.
      const fromStart = await resume(z.port, sessionId, running.frames()[0].id!);
      open.push(fromStart);
      await endedWithin(fromStart, MARGIN_MS, `trial ${trial}: the resume from the first event on ${z.name}`);
      expect({ trial, progress: progressOf(fromStart.messages()) }).toEqual({ trial, progress });
      expect(fromStart.messages().at(-1)).toEqual(ending);
      expect(fromStart.frames().at(-1)!.id).toBe(resumed.frames().at(-1)!.id);

      pool[trial % 3] = await replacement;
    }
  }, 180_000);

  test('killed before a stream lease was due: the client never got an id of the stream, only a failed POST', async () => {
    // A delay longer than the test: the lease of this call is never taken, so its stream delivers nothing.
    const x = await startInstance({ name: 'D', redisUrl, keyPrefix: redis.runPrefix, leaseTtlMs: LEASE_TTL_MS, leaseDelayMs: 60_000 });
    try {
      const sessionId = await newSession(pool[0].port);
      const running = await startSlowCount(x.port, sessionId, 300, 100_000, 10);
      open.push(running);
      // slow_count sends a progress every 10 ms: they are stored (the handler runs), but held back with everything
      // else, the response headers too.
      const stored = async () => {
        let events = 0;
        for await (const keys of redis.client().scanIterator({ MATCH: `${redis.runPrefix}mcp:events:{${sessionId}/*:log`, COUNT: 200 })) {
          for (const key of keys) events += await redis.client().lLen(key);
        }
        return events;
      };
      const deadline = Date.now() + 10_000;
      while ((await stored()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await stored()).toBeGreaterThanOrEqual(3);
      expect({ status: running.status, received: running.text() }).toEqual({ status: 0, received: '' });
      x.signal('SIGKILL');
      await endedWithin(running, 10_000, 'the POST to the killed instance');
      expect(await x.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Nothing to resume from: the client knows its request failed (a dropped connection), as for any POST whose
    // instance died before it answered, and no resume elsewhere can be left waiting on a stream without a lease.
      expect({ status: running.status, frames: running.frames() }).toEqual({ status: 0, frames: [] });
    } finally {
      x.signal('SIGKILL');
    }
  }, 60_000);
});
