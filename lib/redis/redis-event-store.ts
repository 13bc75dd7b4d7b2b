import { EVENT_STORE_DEFAULTS } from '../defaults.js';
import { isResponseMessage } from '../protocol/jsonrpc.js';
import type { SseEvent } from '../store/sse-event.js';
import type { EventStore, StoredEvent } from '../store/event-store.js';
import { firstAfter, formatEventId, parseEventId } from '../store/sequenced-event-id.js';
import { checkCommandTimeout, CommandDeadlines, untilReady } from './command-deadline.js';
import { isClusterClient, isSingleConnectionClient } from './client-kind.js';
import { checkKeyPrefix, hashTag } from './hash-tag.js';
import { REDIS_DEFAULTS } from './redis-defaults.js';
import { RedisScript } from './redis-script.js';

/**
 * The commands `RedisEventStore` runs in a transaction. A node-redis (`redis` v5 or v6) `client.multi()` fits;
 * declared structurally so that any client with modules or RESP options is accepted without generics.
 */
export interface RedisEventStoreMulti {
  hSet(key: string, field: string, value: string): RedisEventStoreMulti;
  hGet(key: string, field: string): RedisEventStoreMulti;
  rPush(key: string, element: string): RedisEventStoreMulti;
  lTrim(key: string, start: number, stop: number): RedisEventStoreMulti;
  lRange(key: string, start: number, stop: number): RedisEventStoreMulti;
  pExpire(key: string, ms: number): RedisEventStoreMulti;
  pTTL(key: string): RedisEventStoreMulti;
  exec(): Promise<unknown>;
}

/**
 * The subset of a connected node-redis client that `RedisEventStore` uses: `createClient()`, or `createCluster()`
 * for a Redis Cluster.
 */
export interface RedisEventStoreClient {
  incr(key: string): Promise<number>;
  lRange(key: string, start: number, stop: number): Promise<unknown>;
  multi(): RedisEventStoreMulti;
  /**
   * node-redis `EVAL`: with it an event is stored in one command and one round trip (on a single Redis; on a
   * cluster the store-wide counter is in another slot), and a stream is marked complete in one.
   */
  eval?(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** node-redis `EVALSHA`: with it the scripts' text is not sent with every call. */
  evalSha?(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export interface RedisEventStoreOptions {
  /** Prefix of every key this store writes; no `{` or `}` (a hash tag follows it). Defaults to `'mcp:events:'`. */
  keyPrefix?: string;
  /** Events kept per stream; older ones are dropped first. Defaults to `1000`. */
  maxEventsPerStream?: number;
  /** Milliseconds a stream is kept after its last event (Redis `PEXPIRE`). Defaults to `300000` (5 minutes). */
  ttlMs?: number;
  /**
   * Milliseconds an operation waits for Redis before it rejects with `RedisTimeoutError` (Redis down or
   * unreachable: node-redis queues commands while it reconnects); `0` waits as long as the client does.
   * Defaults to `2000`.
   */
  commandTimeoutMs?: number;
}

/** One list entry: the store-wide seq and what the event carried. */
interface Entry {
  seq: number;
  message?: SseEvent['message'];
  retry?: number;
}


/**
 * Events in Redis, shared by every instance that uses the same Redis and `keyPrefix`. Same semantics as
 * `InMemoryEventStore`: ids are `<streamId>#<seq>` with `seq` from one counter for the whole store
 * (`INCR <prefix>seq`, never expired), so ids never repeat across streams, sessions, instances or stream
 * incarnations; a stream is kept `ttlMs` after its last event and holds its last `maxEventsPerStream` events.
 *
 * Keys, per stream: `<prefix>{<streamId>}:log`, a list of JSON entries `{seq, message, retry}` in seq order, the
 * only key an event writes. The list keeps one entry more than `maxEventsPerStream` once events were dropped: that
 * oldest entry is never replayed, its seq is the last dropped one (`droppedUpTo`); before any was dropped, its
 * first entry is the first event of this incarnation of the stream id. A stream that ended without a response (a
 * cancelled request) also gets `<prefix>{<streamId>}:meta`, a hash whose `complete` holds the seq of the stream's
 * last event when `completeStream` marked it (a stream whose last event is a response is complete without it). Both
 * keys of a stream share a hash tag (the stream id, braces and `%` escaped), so its transactions stay on one Redis
 * Cluster slot; the counter is a key of its own, only ever used alone. No `KEYS`/`SCAN` anywhere. Works on
 * `createClient()` and `createCluster()` clients.
 *
 * Every operation rejects with `RedisTimeoutError` when Redis has not answered within `commandTimeoutMs`; a
 * `storeEvent` that resolved was acknowledged by Redis.
 *
 * Every instance sharing a `keyPrefix` must use the same `maxEventsPerStream`. A stream is written by one writer
 * at a time (as the session managers do); concurrent writers to one stream id could interleave out of seq order.
 */
export class RedisEventStore implements EventStore {
  private readonly client: RedisEventStoreClient;
  private readonly keyPrefix: string;
  private readonly maxEventsPerStream: number;
  private readonly ttlMs: number;
  private readonly deadlines: CommandDeadlines<RedisEventStoreClient>;
  /** Events are stored by one script (`EVAL`): a single Redis, not a cluster. */
  private readonly oneRoundTrip: boolean;
  /**
   * On a `createClient()` client an event is one command on one connection, so writes made without waiting are
   * stored in call order (the session managers then pipeline a stream's writes). Not on a cluster (an event takes
   * two commands), nor on a pool or Sentinel client (commands of one caller may go out on different connections).
   */
  readonly keepsWriteOrder: boolean;
  /** Streams whose last event given to storeEvent was a response (complete once stored), until their completeStream call. */
  private readonly completedByResponse = new Set<string>();
  /** Events stored during this tick, by stream: each stream's go to Redis in one command once the tick ends. */
  private readonly batches = new Map<string, EventBatch>();

  constructor(client: RedisEventStoreClient, options: RedisEventStoreOptions = {}) {
    this.client = client;
    this.keyPrefix = checkKeyPrefix(options.keyPrefix ?? EVENT_STORE_DEFAULTS.redisKeyPrefix);
    this.maxEventsPerStream = options.maxEventsPerStream ?? EVENT_STORE_DEFAULTS.maxEventsPerStream;
    this.ttlMs = options.ttlMs ?? EVENT_STORE_DEFAULTS.ttlMs;
    this.deadlines = new CommandDeadlines('RedisEventStore', client, checkCommandTimeout(options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs));
    if (!Number.isInteger(this.maxEventsPerStream) || this.maxEventsPerStream < 1) throw new RangeError('maxEventsPerStream must be a positive integer');
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 1) throw new RangeError('ttlMs must be a positive integer');
    // A cluster keeps the store-wide counter in another slot than the stream's keys: a script cannot span them.
    this.oneRoundTrip = typeof client.eval === 'function' && !isClusterClient(client);
    this.keepsWriteOrder = this.oneRoundTrip && isSingleConnectionClient(client);
  }

  storeEvent(streamId: string, event: SseEvent): Promise<string> {
    if (streamId.length === 0) return Promise.reject(new TypeError('storeEvent needs a non-empty streamId'));
    // A stream whose last event is a response is complete: the completeStream that follows it costs no command.
    // Kept in call order (the order the events are stored in), so a later event of the stream undoes it.
    if (isResponseMessage(event.message)) this.markedByResponse(streamId);
    else this.completedByResponse.delete(streamId);
    if (this.oneRoundTrip) return this.batched(streamId, event);
    return this.deadline(async (client, signal) => {
      const seq = await client.incr(`${this.keyPrefix}seq`);
      // Past the deadline the caller was told the write failed: it must not happen later (the seq is just skipped).
      await untilReady(this.client, signal);
      const entry: Entry = { seq, message: event.message, retry: event.retry };
      const log = this.logKey(streamId);
      // No other I/O between the INCR reply and this transaction: on one connection, writes to a stream stay in seq order.
      await client
        .multi()
        .rPush(log, JSON.stringify(entry))
        .lTrim(log, -(this.maxEventsPerStream + 1), -1)
        .pExpire(log, this.ttlMs)
        .exec();
      return formatEventId(streamId, seq);
    });
  }

  async *replayEventsAfter(lastEventId: string): AsyncGenerator<StoredEvent> {
    const position = parseEventId(lastEventId);
    if (!position) return;
    await this.writeQueued(position.streamId);
    const log = this.logKey(position.streamId);
    // One command: a consistent snapshot, so events stored while the consumer is slow do not shift this replay.
    const texts = await this.deadline((client) => client.lRange(log, 0, -1));
    if (!Array.isArray(texts) || texts.length === 0) return; // unknown or expired stream
    const entries: Entry[] = [];
    for (const text of texts) {
      const entry = parseEntry(text);
      if (!entry) return; // not written by this store: replay nothing rather than something wrong
      entries.push(entry);
    }
    // Beyond maxEventsPerStream, the oldest entry is the last dropped event, kept only for its seq.
    const dropped = entries.length - this.maxEventsPerStream;
    const droppedUpTo = dropped > 0 ? entries[dropped - 1].seq : 0;
    const kept = dropped > 0 ? entries.slice(dropped) : entries;
    // An id newer than anything stored finds nothing after it below. Events after the id were dropped: nothing, never a gap.
    if (position.seq < droppedUpTo) return;
    // An id older than this incarnation (its stream id expired and was written again) saw none of these events.
    // Nothing dropped: the first entry is the incarnation's first event. Something dropped: the id is at or past
    // droppedUpTo, which is past the incarnation's start, so the comparison below cannot matter.
    const startSeq = entries[0].seq;
    const start = position.seq < startSeq ? 0 : firstAfter(kept, position.seq);
    for (const { seq, message, retry } of kept.slice(start)) {
      const event: SseEvent = {};
      if (message !== undefined) event.message = message;
      if (retry !== undefined) event.retry = retry;
      yield { id: formatEventId(position.streamId, seq), event };
    }
  }

  streamIdOf(eventId: string): string | undefined {
    return parseEventId(eventId)?.streamId;
  }

  /** `<streamId>#0`: seq 0 comes before every seq this store hands out. */
  startEventId(streamId: string): string {
    return formatEventId(streamId, 0);
  }

  async completeStream(streamId: string): Promise<void> {
    await this.writeQueued(streamId);
    if (this.completedByResponse.delete(streamId)) return; // its response's write completed it
    const { log, meta } = this.keys(streamId);
    // One script (both keys in one slot, so on a cluster too): the mark is set only while the stream's list exists.
    if (typeof this.client.eval === 'function') {
      await this.deadline((client) => COMPLETE_STREAM_SCRIPT.run(client as Required<RedisEventStoreClient>, [log, meta], []));
      return;
    }
    await this.deadline(async (client, signal) => {
      await untilReady(this.client, signal);
      const [last, ttl] = (await client.multi().lRange(log, -1, -1).pTTL(log).exec()) as [unknown, unknown];
      const seq = Array.isArray(last) ? parseEntry(last[0])?.seq : undefined;
      if (seq === undefined || typeof ttl !== 'number' || ttl <= 0) return; // unknown or expired stream: nothing to mark
      await untilReady(this.client, signal);
      // `complete` holds the seq of the stream's last event, so a mark can never leak onto a later incarnation (or
      // onto events stored after it); the hash expires with the list.
      await client.multi().hSet(meta, 'complete', String(seq)).pExpire(meta, ttl).exec();
    });
  }

  /**
   * Whether the stream is complete: its last event is a response, or `completeStream` marked it after its last
   * event (for tests and metrics; the middleware does not need it).
   */
  async isStreamComplete(streamId: string): Promise<boolean> {
    await this.writeQueued(streamId);
    const { log, meta } = this.keys(streamId);
    const [last, complete] = (await this.deadline((client) => client.multi().lRange(log, -1, -1).hGet(meta, 'complete').exec())) as [unknown, unknown];
    const entry = Array.isArray(last) ? parseEntry(last[0]) : undefined;
    if (!entry) return false;
    return isResponseMessage(entry.message) || complete === String(entry.seq);
  }

  /**
   * Queues an event for its stream's next write: the events a stream gets during one tick (a progress notification
   * and the response right after it) go to Redis as one command when the tick ends (after the promise callbacks
   * that made them, see writeAfterCallbacks), in the order they came, each resolving with its own id once Redis
   * acknowledged the command. A batch that reaches MAX_BATCH_EVENTS or MAX_BATCH_CHARS is written at once.
   */
  private batched(streamId: string, event: SseEvent): Promise<string> {
    let tail: string;
    try {
      tail = entryTail(event);
    } catch (error) {
      return Promise.reject(error); // a message JSON cannot hold (a BigInt, a cycle) fails like a rejected write
    }
    let batch = this.batches.get(streamId);
    if (!batch) {
      if (this.batches.size === 0) queueMicrotask(this.writeAfterCallbacks);
      batch = { tails: [], chars: 0, waiters: [] };
      this.batches.set(streamId, batch);
    }
    const written = batch;
    written.tails.push(tail);
    written.chars += tail.length;
    const id = new Promise<string>((resolve, reject) => written.waiters.push({ resolve, reject }));
    if (written.tails.length >= MAX_BATCH_EVENTS || written.chars >= MAX_BATCH_CHARS) {
      this.batches.delete(streamId);
      this.writeBatch(streamId, written);
    }
    return id;
  }

  /**
   * Writes the stream's queued events now, if any, and resolves once they are stored or failed: a replay or a
   * completion asked for before the end of the tick finds them (on any client, a pool's included).
   */
  private writeQueued(streamId: string): Promise<void> | undefined {
    const batch = this.batches.get(streamId);
    if (!batch) return undefined;
    this.batches.delete(streamId);
    return this.writeBatch(streamId, batch);
  }

  /**
   * A tick is only over once its promise callbacks have run: a tool that awaits its progress notification sends its
   * result a few callbacks later. `process.nextTick` from a promise callback runs once no callback is left (from a
   * plain callback it would run before them), so the write is scheduled from one.
   */
  private readonly writeAfterCallbacks = (): void => {
    process.nextTick(this.writeBatches);
  };

  /** Writes every stream's queued events (the end of the tick they came in). */
  private readonly writeBatches = (): void => {
    // Taken out first: events stored from here on start the next tick's batches, whatever happens below.
    const due = [...this.batches];
    this.batches.clear();
    for (const [streamId, batch] of due) void this.writeBatch(streamId, batch);
  };

  /**
   * One script stores the batch (taken out of `batches` by its caller, so written once): one round trip, and one
   * command the deadline can drop if it is still queued (no late write, and never part of a batch). Sent as text
   * (`EVAL`), never by SHA1: a `NOSCRIPT` retry would be sent after writes made later, and could store events out
   * of order (see keepsWriteOrder). Resolves once every waiter has its id or its error; never rejects.
   */
  private writeBatch(streamId: string, batch: EventBatch): Promise<void> {
    let written: Promise<unknown>;
    try {
      // One command: it may go without the deadline's abort signal while Redis answers (see CommandDeadlines).
      written = this.deadlines.run(
        (client) =>
          client.eval!(STORE_EVENTS_SCRIPT, {
            keys: [`${this.keyPrefix}seq`, this.logKey(streamId)],
            arguments: [String(this.maxEventsPerStream + 1), String(this.ttlMs), ...batch.tails],
          }),
        true,
      );
    } catch (error) {
      written = Promise.reject(error); // never a batch left waiting
    }
    return written.then(
      (first) => {
        const seq = Number(first);
        for (let i = 0; i < batch.waiters.length; i++) batch.waiters[i].resolve(formatEventId(streamId, seq + i));
      },
      (error: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(error);
      },
    );
  }

  /** Runs `operation` within `commandTimeoutMs`, on the client with the deadline's abort signal. */
  private deadline<T>(operation: (client: RedisEventStoreClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.deadlines.run(operation);
  }

  /** Remembers (a bounded while) that a stream's last event is a response: its completeStream needs no command. */
  private markedByResponse(streamId: string): void {
    if (this.completedByResponse.size >= MAX_REMEMBERED_COMPLETIONS) this.completedByResponse.clear();
    this.completedByResponse.add(streamId);
  }

  private logKey(streamId: string): string {
    return `${this.keyPrefix}${hashTag(streamId)}:log`;
  }

  private keys(streamId: string): { log: string; meta: string } {
    const base = `${this.keyPrefix}${hashTag(streamId)}`;
    return { log: `${base}:log`, meta: `${base}:meta` };
  }
}

/**
 * Stores a stream's events (`ARGV[3]` on, each the tail of its entry), in the one key of the stream: the next seqs
 * of the store-wide counter (`INCRBY`), the entries (`{"seq":<seq>,` + the rest of their JSON) appended in order,
 * the trim once the list is longer than `ARGV[1]`, the TTL (`ARGV[2]`). Returns the first event's seq. What Redis
 * spends on it grows with the keys and commands it takes more than with its events: a second key per stream (the
 * hash this store once wrote with every event) cost Redis about as much again, and so did a second command.
 */
const STORE_EVENTS_SCRIPT = `local count = #ARGV - 2
local first = redis.call('INCRBY', KEYS[1], count) - count + 1
local entries = {}
for i = 1, count do
  local seq = string.format('%d', first + i - 1)
  local tail = ARGV[i + 2]
  if tail == '}' then entries[i] = '{"seq":' .. seq .. '}' else entries[i] = '{"seq":' .. seq .. ',' .. tail end
end
local keep = tonumber(ARGV[1])
if redis.call('RPUSH', KEYS[2], unpack(entries)) > keep then redis.call('LTRIM', KEYS[2], -keep, -1) end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return first`;

/** The most events one command stores (Lua's `unpack` takes a few thousand values at most). */
const MAX_BATCH_EVENTS = 256;
/** The most characters of entries one command stores (up to three times as many bytes of UTF-8): a burst of large events goes out in several. */
const MAX_BATCH_CHARS = 1024 * 1024;

/** A stream's events waiting for the end of the tick, and who waits for their ids. */
interface EventBatch {
  tails: string[];
  chars: number;
  waiters: Array<{ resolve(id: string): void; reject(error: unknown): void }>;
}

/**
 * Marks a stream complete: `complete` takes the seq of its last event, so a mark never leaks onto a later
 * incarnation, and the hash expires with the list. An unknown or expired stream is left alone.
 */
const COMPLETE_STREAM_SCRIPT = new RedisScript(`
local last = redis.call('LINDEX', KEYS[1], -1)
local ttl = redis.call('PTTL', KEYS[1])
if not last or ttl <= 0 then return 0 end
local seq = string.match(last, '^{"seq":(%d+)')
if not seq then return 0 end
redis.call('HSET', KEYS[2], 'complete', seq)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`);

/** Streams remembered as ending with a response; past it the memory is dropped (completeStream then sends its command). */
const MAX_REMEMBERED_COMPLETIONS = 10_000;

/** A list entry this store wrote (an object with a numeric seq), or undefined. */
function parseEntry(text: unknown): Entry | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const entry = JSON.parse(text) as Entry;
    return typeof entry === 'object' && entry !== null && typeof entry.seq === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON of an entry after its opening brace and seq: `"message":…,"retry":…}` (the message's text reused). */
function entryTail(event: SseEvent): string {
  const parts: string[] = [];
  if (event.message !== undefined) parts.push(`"message":${event.data ?? JSON.stringify(event.message)}`);
  if (event.retry !== undefined) parts.push(`"retry":${JSON.stringify(event.retry)}`);
  return `${parts.join(',')}}`;
}
