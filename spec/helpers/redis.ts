/**
 * The Redis the suites share: `redis://127.0.0.1:6379` (`REDIS_URL` overrides). Unreachable, the suites are skipped
 * with a warning, or fail when `REQUIRE_REDIS=1` (CI). Every key a file writes starts with a prefix unique to the
 * run, and is deleted in afterAll.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createClient } from 'redis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * `disableOfflineQueue`: the first client of a file has it (the setting docs/redis.md recommends for production,
 * under which the event store's writes go without the deadline's abort signal while Redis answers); the others,
 * another instance's connections, have node-redis's defaults (every command with the signal): a file that uses both
 * runs both paths.
 */
const newClient = (disableOfflineQueue = false) => createClient({ url: redisUrl, disableOfflineQueue });
export type RedisTestClient = ReturnType<typeof newClient>;

/** Why Redis does not answer PING, or undefined when it does; checked synchronously (in a child process). */
export function probeRedis(url = redisUrl): string | undefined {
  const program = `
    const { createClient } = require('redis');
    const client = createClient({ url: process.env.PROBE_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
    client.on('error', () => {});
    client.connect().then(() => client.ping()).then(() => { client.destroy(); process.exit(0); },
      (error) => { process.stderr.write(String(error && error.message || error)); process.exit(1); });
  `;
  try {
    execFileSync(process.execPath, ['-e', program], { cwd: path.join(__dirname, '..', '..'), env: { ...process.env, PROBE_URL: url }, timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
    return undefined;
  } catch (error) {
    const e = error as Error & { stderr?: Buffer };
    return e.stderr?.toString().trim() || e.message;
  }
}

/** The Redis of a test file: connected clients (closed in afterAll) and key prefixes unique to the run. */
export interface RedisTestContext {
  /** A client connected in beforeAll. */
  client(): RedisTestClient;
  /** Another connected client (another instance's connection), closed in afterAll. */
  connect(): Promise<RedisTestClient>;
  /** The prefix of every key of this file's run. */
  readonly runPrefix: string;
  /** A key prefix of this run, unique per call. */
  prefix(name: string): string;
}

/**
 * Registers `body`'s tests when Redis answers, else a skipped test with a warning (a failing one under
 * `REQUIRE_REDIS=1`). `body` gets the file's Redis context; its keys are deleted in afterAll.
 */
export function describeWithRedis(what: string, body: (redis: RedisTestContext) => void): void {
  const unreachable = probeRedis();
  if (unreachable !== undefined) {
    if (process.env.REQUIRE_REDIS === '1') {
      test(`Redis is reachable at ${redisUrl} (REQUIRE_REDIS=1)`, () => {
        throw new Error(`Redis not reachable at ${redisUrl}: ${unreachable}`);
      });
    } else {
      console.warn(`Redis not reachable at ${redisUrl} (${unreachable}): skipping ${what}; set REQUIRE_REDIS=1 to make this an error`);
      test.skip(`${what} (Redis not reachable at ${redisUrl})`, () => {});
    }
    return;
  }

  const runPrefix = `mcp-express-test:${Date.now()}-${Math.random().toString(36).slice(2)}:`;
  const clients: RedisTestClient[] = [];
  let first: RedisTestClient | undefined;
  let prefixes = 0;

  const connect = async (disableOfflineQueue = false): Promise<RedisTestClient> => {
    const created = newClient(disableOfflineQueue);
    created.on('error', (error) => console.error('[redis test client]', error));
    clients.push(created);
    await created.connect();
    return created;
  };

  beforeAll(async () => {
    first = await connect(true);
  });

  afterAll(async () => {
    if (first?.isReady) {
      for await (const keys of first.scanIterator({ MATCH: `${runPrefix}*`, COUNT: 200 })) if (keys.length > 0) await first.del(keys);
    }
    await Promise.all(clients.map((each) => (each.isOpen ? each.close() : undefined)));
  });

  body({
    client: () => {
      if (!first) throw new Error('the Redis test client is not connected (see the beforeAll error)');
      return first;
    },
    connect,
    runPrefix,
    prefix: (name) => `${runPrefix}${name}-${++prefixes}:`,
  });
}
