import { TASK_DEFAULTS } from '../tasks/task-defaults.js';
import type { InputRequest } from '../server/input-required.js';
import type { TaskOutcome, TaskRecord, TaskStatus, TaskStore } from '../tasks/task-store.js';
import { checkCommandTimeout, CommandDeadlines, throwIfPastDeadline } from './command-deadline.js';
import { checkKeyPrefix, hashTag } from './hash-tag.js';
import { REDIS_DEFAULTS } from './redis-defaults.js';

/**
 * The subset of a connected node-redis client (`redis` v5 or v6) that `RedisTaskStore` uses: `createClient()`, or
 * `createCluster()` for a Redis Cluster.
 */
export interface RedisTaskStoreClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  hGetAll(key: string): Promise<unknown>;
  zAdd(key: string, member: { score: number; value: string }): Promise<unknown>;
  zRange(key: string, start: number, stop: number): Promise<unknown>;
  zRem(key: string, member: string): Promise<unknown>;
  pExpire(key: string, ms: number): Promise<unknown>;
}

export interface RedisTaskStoreOptions {
  /** Prefix of every key this store writes; no `{` or `}` (a hash tag follows it). Defaults to `'mcp:task:'`. */
  keyPrefix?: string;
  /**
   * Milliseconds an operation waits for Redis before it rejects with `RedisTimeoutError` (Redis down or
   * unreachable: node-redis queues commands while it reconnects); `0` waits as long as the client does.
   * Defaults to `2000`.
   */
  commandTimeoutMs?: number;
}

/** Scripts share these helpers: the TTL of a task is its own `ttlMs` field, restarted by every visible write. */
const PRELUDE = `
local function terminal(status) return status == 'completed' or status == 'failed' or status == 'cancelled' end
local function touch()
  local ttl = redis.call('HGET', KEYS[1], 'ttlMs')
  if ttl and ttl ~= 'null' then
    for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
`;

/** ARGV: now, ttlMs ('null' or ms), field count n, n field/value pairs, then request key/value pairs. */
const CREATE = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + 2 * n))
if #ARGV > 3 + 2 * n then redis.call('HSET', KEYS[2], unpack(ARGV, 4 + 2 * n, #ARGV)) end
touch()
return 1`;

/** ARGV: now, then key/value pairs. */
const ADD_REQUESTS = `${PRELUDE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return 0 end
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[3], ARGV[i]) == 0 then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
if redis.call('HLEN', KEYS[2]) > 0 then redis.call('HSET', KEYS[1], 'status', 'input_required') end
redis.call('HSET', KEYS[1], 'lastUpdatedAt', ARGV[1])
touch()
return 1`;

/** ARGV: now, then key/value pairs. Returns the accepted keys. */
const ANSWER = `${PRELUDE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return {} end
local accepted = {}
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then
    redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    table.insert(accepted, ARGV[i])
  end
end
if #accepted > 0 then
  if redis.call('HLEN', KEYS[2]) == 0 then redis.call('HSET', KEYS[1], 'status', 'working') end
  redis.call('HSET', KEYS[1], 'lastUpdatedAt', ARGV[1])
  touch()
end
return accepted`;

/** ARGV: now, field, value, visible ('1' moves lastUpdatedAt and restarts the TTL). */
const SET_FIELD = `${PRELUDE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'lastUpdatedAt', ARGV[1])
  touch()
end
return 1`;

/** ARGV: now, status, then field/value pairs. */
const FINISH = `${PRELUDE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'lastUpdatedAt', ARGV[1])
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, #ARGV)) end
redis.call('DEL', KEYS[2])
touch()
return 1`;

/**
 * Tasks in Redis, shared by every instance that uses the same Redis and `keyPrefix`: any instance can answer
 * `tasks/get`, `tasks/update` and `tasks/cancel` for a task another runs.
 *
 * Keys, per task (one hash tag, so a task's script stays on one Redis Cluster slot): `<prefix>{<taskId>}`, a hash
 * of the task's fields (`result` and `error` as JSON); `<prefix>{<taskId>}:requests`, outstanding input requests
 * by key; `<prefix>{<taskId>}:responses`, answers by key. Each write is one Lua script (atomic; a terminal task is
 * never changed) that restarts the keys' `PEXPIRE` with the task's `ttlMs`. `<prefix>owner:{<owner>}`, a sorted
 * set of task ids by creation time, serves `list` (expired ids are pruned when listed); it lives on its own slot
 * and is only ever used alone, and `list` reads the tasks of a page with single-key reads: all of it works on
 * `createClient()` and `createCluster()` clients. Ids and owners are escaped inside the braces (`%`, `{`, `}`).
 *
 * Every operation rejects with `RedisTimeoutError` when Redis has not answered within `commandTimeoutMs`.
 */
export class RedisTaskStore implements TaskStore {
  private readonly keyPrefix: string;
  private readonly deadlines: CommandDeadlines<RedisTaskStoreClient>;

  constructor(client: RedisTaskStoreClient, options: RedisTaskStoreOptions = {}) {
    this.keyPrefix = checkKeyPrefix(options.keyPrefix ?? TASK_DEFAULTS.redisKeyPrefix);
    this.deadlines = new CommandDeadlines('RedisTaskStore', client, checkCommandTimeout(options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs));
  }

  async create(task: TaskRecord): Promise<void> {
    const fields = toHash(task);
    const pairs = Object.entries(fields).flat();
    const requests = Object.entries(task.inputRequests).flatMap(([key, request]) => [key, JSON.stringify(request)]);
    await this.deadline(async (client, signal) => {
      const created = await client.eval(CREATE, { keys: this.keys(task.taskId), arguments: [now(), String(task.ttlMs), String(pairs.length / 2), ...pairs, ...requests] });
      if (Number(created) !== 1) throw new Error(`Task ${task.taskId} already exists`);
      // Answers recorded before creation are unusual; store them as given.
      const responses = Object.entries(task.inputResponses);
      throwIfPastDeadline(signal);
      if (responses.length > 0) await client.eval(ANSWER_RAW, { keys: this.keys(task.taskId), arguments: responses.flatMap(([key, value]) => [key, JSON.stringify(value)]) });
      // The owner index is on a slot of its own: two single-key writes, no transaction across slots.
      const index = this.ownerKey(task.owner);
      throwIfPastDeadline(signal);
      await client.zAdd(index, { score: Date.parse(task.createdAt) || Date.now(), value: task.taskId });
      await client.pExpire(index, Math.max(task.ttlMs ?? TASK_DEFAULTS.maxTtlMs, TASK_DEFAULTS.maxTtlMs));
    });
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.deadline((client) => this.read(client, taskId));
  }

  async addInputRequests(taskId: string, requests: Record<string, InputRequest>): Promise<boolean> {
    const pairs = Object.entries(requests).flatMap(([key, request]) => [key, JSON.stringify(request)]);
    return Number(await this.deadline((client) => client.eval(ADD_REQUESTS, { keys: this.keys(taskId), arguments: [now(), ...pairs] }))) === 1;
  }

  async answerInputRequests(taskId: string, responses: Record<string, unknown>): Promise<string[]> {
    const pairs = Object.entries(responses).flatMap(([key, value]) => [key, JSON.stringify(value)]);
    const accepted = await this.deadline((client) => client.eval(ANSWER, { keys: this.keys(taskId), arguments: [now(), ...pairs] }));
    return Array.isArray(accepted) ? accepted.map(String) : [];
  }

  async setStatusMessage(taskId: string, statusMessage: string): Promise<void> {
    await this.deadline((client) => client.eval(SET_FIELD, { keys: this.keys(taskId), arguments: [now(), 'statusMessage', statusMessage, '1'] }));
  }

  async renewLease(taskId: string, leaseExpiresAt: number): Promise<void> {
    await this.deadline((client) => client.eval(SET_FIELD, { keys: this.keys(taskId), arguments: [now(), 'leaseExpiresAt', String(leaseExpiresAt), '0'] }));
  }

  async finish(taskId: string, outcome: TaskOutcome): Promise<boolean> {
    const extra: string[] = [];
    if (outcome.status === 'completed') extra.push('result', JSON.stringify(outcome.result));
    else if (outcome.status === 'failed') extra.push('error', JSON.stringify(outcome.error));
    else if (outcome.statusMessage !== undefined) extra.push('statusMessage', outcome.statusMessage);
    return Number(await this.deadline((client) => client.eval(FINISH, { keys: this.keys(taskId), arguments: [now(), outcome.status, ...extra] }))) === 1;
  }

  async list(owner: string, options: { cursor?: string; limit?: number } = {}): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const limit = options.limit ?? TASK_DEFAULTS.listPageSize;
    const index = this.ownerKey(owner);
    return this.deadline(async (client) => {
      const ids = ((await client.zRange(index, 0, -1)) as string[]).map(String).reverse();
      let start = options.cursor === undefined ? 0 : ids.indexOf(options.cursor) + 1;
      const tasks: TaskRecord[] = [];
      let last: string | undefined;
      while (start < ids.length && tasks.length < limit) {
        // The tasks of a page are read together (each task's keys on its own slot), then taken in index order.
        const batch = ids.slice(start, start + limit - tasks.length);
        const read = await Promise.all(batch.map((id) => this.read(client, id)));
        for (const [n, task] of read.entries()) {
          if (!task) {
            await client.zRem(index, batch[n]); // expired
            continue;
          }
          if (task.owner === owner) tasks.push(task);
          last = batch[n];
        }
        start += batch.length;
      }
      return start < ids.length && last !== undefined ? { tasks, nextCursor: last } : { tasks };
    });
  }

  /** A task's three keys, read together (one slot, so on one cluster node). */
  private async read(client: RedisTaskStoreClient, taskId: string): Promise<TaskRecord | undefined> {
    const [hashKey, requestsKey, responsesKey] = this.keys(taskId);
    const [hash, requests, responses] = (await Promise.all([client.hGetAll(hashKey), client.hGetAll(requestsKey), client.hGetAll(responsesKey)])) as Array<Record<string, string>>;
    if (!hash || hash.status === undefined) return undefined;
    return fromHash(hash, requests ?? {}, responses ?? {});
  }

  /** Runs `operation` within `commandTimeoutMs`, on the client with the deadline's abort signal. */
  private deadline<T>(operation: (client: RedisTaskStoreClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.deadlines.run(operation);
  }

  private keys(taskId: string): string[] {
    const base = `${this.keyPrefix}${hashTag(taskId)}`;
    return [base, `${base}:requests`, `${base}:responses`];
  }

  private ownerKey(owner: string): string {
    return `${this.keyPrefix}owner:${hashTag(owner)}`;
  }
}

/** Stores answers as given (create only). */
const ANSWER_RAW = `${PRELUDE}
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
touch()
return 1`;

function now(): string {
  return new Date().toISOString();
}

function toHash(task: TaskRecord): Record<string, string> {
  const hash: Record<string, string> = {
    taskId: task.taskId,
    owner: task.owner,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: String(task.ttlMs),
  };
  if (task.sessionId !== undefined) hash.sessionId = task.sessionId;
  if (task.statusMessage !== undefined) hash.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) hash.pollIntervalMs = String(task.pollIntervalMs);
  if (task.result !== undefined) hash.result = JSON.stringify(task.result);
  if (task.error !== undefined) hash.error = JSON.stringify(task.error);
  if (task.leaseExpiresAt !== undefined) hash.leaseExpiresAt = String(task.leaseExpiresAt);
  return hash;
}

function fromHash(hash: Record<string, string>, requests: Record<string, string>, responses: Record<string, string>): TaskRecord {
  const task: TaskRecord = {
    taskId: hash.taskId,
    owner: hash.owner,
    status: hash.status as TaskStatus,
    createdAt: hash.createdAt,
    lastUpdatedAt: hash.lastUpdatedAt,
    ttlMs: hash.ttlMs === 'null' ? null : Number(hash.ttlMs),
    inputRequests: parseValues(requests) as Record<string, InputRequest>,
    inputResponses: parseValues(responses),
  };
  if (hash.sessionId !== undefined) task.sessionId = hash.sessionId;
  if (hash.statusMessage !== undefined) task.statusMessage = hash.statusMessage;
  if (hash.pollIntervalMs !== undefined) task.pollIntervalMs = Number(hash.pollIntervalMs);
  if (hash.result !== undefined) task.result = JSON.parse(hash.result);
  if (hash.error !== undefined) task.error = JSON.parse(hash.error);
  if (hash.leaseExpiresAt !== undefined) task.leaseExpiresAt = Number(hash.leaseExpiresAt);
  return task;
}

function parseValues(hash: Record<string, string>): Record<string, any> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(hash)) out[key] = JSON.parse(value);
  return out;
}
