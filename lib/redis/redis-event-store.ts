import { EVENT_STORE_DEFAULTS } from '../defaults.js';
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
  hSetNX(key: string, field: string, value: string): RedisEventStoreMulti;
  hSet(key: string, field: string, value: string): RedisEventStoreMulti;
  hGet(key: string, field: string): RedisEventStoreMulti;
  rPush(key: string, element: string): RedisEventStoreMulti;
  lTrim(key: string, start: number, stop: number): RedisEventStoreMulti;
  lRange(key: string, start: number, stop: number): RedisEventStoreMulti;
  pExpire(key: string, ms: number, mode?: 'NX' | 'XX' | 'GT' | 'LT'): RedisEventStoreMulti;
  exec(): Promise<unknown>;
}

/**
 * The subset of a connected node-redis client that `RedisEventStore` uses: `createClient()`, or `createCluster()`
 * for a Redis Cluster.
 */
export interface RedisEventStoreClient {
  incr(key: string): Promise<number>;
  hGet(key: string, field: string): Promise<unknown>;
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
 * Keys, per stream: `<prefix>{<streamId>}:log`, a list of JSON entries `{seq, message, retry}` in seq order, and
 * `<prefix>{<streamId>}:meta`, a hash with `startSeq` (first seq of this incarnation of the stream id) and
 * `complete`. The list keeps one entry more than `maxEventsPerStream` once events were dropped: that oldest entry
 * is never replayed, its seq is the last dropped one (`droppedUpTo`). Both keys of a stream share a hash tag (the
 * stream id, braces and `%` escaped), so its transactions stay on one Redis Cluster slot; the counter is a key of
 * its own, only ever used alone. No `KEYS`/`SCAN` anywhere. Works on `createClient()` and `createCluster()` clients.
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
  /** Streams whose response this store wrote (which marked them complete), until their completeStream call. */
  private readonly completedByResponse = new Set<string>();

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

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    if (streamId.length === 0) throw new TypeError('storeEvent needs a non-empty streamId');
    if (this.oneRoundTrip) {
      // One script does the INCR and the writes: one round trip, and one command the deadline can drop if it is
      // still queued (no late write). Sent as text (`EVAL`), never by SHA1: a `NOSCRIPT` retry would be sent after
      // writes made later, and could store events out of order (see keepsWriteOrder).
      return this.deadline(async (client) => {
        const { log, meta } = this.keys(streamId);
        // A response ends its request's stream: the same script marks the stream complete, and the completeStream
        // that follows it costs no command.
        const final = isResponse(event);
        const seq = await client.eval!(STORE_EVENT_SCRIPT, {
          keys: [`${this.keyPrefix}seq`, log, meta],
          arguments: [entryTail(event), String(this.maxEventsPerStream + 1), String(this.ttlMs), final ? '1' : '0'],
        });
        if (final) this.markedByResponse(streamId);
        return formatEventId(streamId, Number(seq));
      });
    }
    return this.deadline(async (client, signal) => {
      const seq = await client.incr(`${this.keyPrefix}seq`);
      // Past the deadline the caller was told the write failed: it must not happen later (the seq is just skipped).
      await untilReady(this.client, signal);
      const entry: Entry = { seq, message: event.message, retry: event.retry };
      const { log, meta } = this.keys(streamId);
      // No other I/O between the INCR reply and this transaction: on one connection, writes to a stream stay in seq order.
      await client
        .multi()
        .hSetNX(meta, 'startSeq', String(seq))
        .rPush(log, JSON.stringify(entry))
        .lTrim(log, -(this.maxEventsPerStream + 1), -1)
        .pExpire(log, this.ttlMs)
        .pExpire(meta, this.ttlMs)
        .exec();
      return formatEventId(streamId, seq);
    });
  }

  async *replayEventsAfter(lastEventId: string): AsyncGenerator<StoredEvent> {
    const position = parseEventId(lastEventId);
    if (!position) return;
    const { log, meta } = this.keys(position.streamId);
    // One transaction: a consistent snapshot, so events stored while the consumer is slow do not shift this replay.
    const [startSeqText, raw] = (await this.deadline((client) => client.multi().hGet(meta, 'startSeq').lRange(log, 0, -1).exec())) as [unknown, unknown];
    if (typeof startSeqText !== 'string' || !Array.isArray(raw)) return; // unknown or expired stream
    const startSeq = Number(startSeqText);
    const entries: Entry[] = [];
    for (const text of raw) {
      try {
        entries.push(JSON.parse(String(text)) as Entry);
      } catch {
        return; // not written by this store: replay nothing rather than something wrong
      }
    }
    // Beyond maxEventsPerStream, the oldest entry is the last dropped event, kept only for its seq.
    const dropped = entries.length - this.maxEventsPerStream;
    const droppedUpTo = dropped > 0 ? entries[dropped - 1].seq : 0;
    const kept = dropped > 0 ? entries.slice(dropped) : entries;
    // An id newer than anything stored finds nothing after it below. Events after the id were dropped: nothing, never a gap.
    if (position.seq < droppedUpTo) return;
    // An id older than this incarnation (its stream id expired and was written again) saw none of these events.
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
    if (this.completedByResponse.delete(streamId)) return; // its response's write marked it
    const { meta } = this.keys(streamId);
    // One script (one key, so on a cluster too): the mark is set only while the stream's hash exists.
    if (typeof this.client.eval === 'function') {
      await this.deadline((client) => COMPLETE_STREAM_SCRIPT.run(client as Required<RedisEventStoreClient>, [meta], []));
      return;
    }
    await this.deadline(async (client, signal) => {
      const startSeq = await client.hGet(meta, 'startSeq');
      if (typeof startSeq !== 'string') return; // unknown or expired stream: nothing to mark
      await untilReady(this.client, signal);
      // `complete` holds the incarnation's startSeq, so a mark can never leak onto a later incarnation; `NX` gives a
      // TTL to a hash recreated by this write should the stream have expired in between.
      await client.multi().hSet(meta, 'complete', startSeq).pExpire(meta, this.ttlMs, 'NX').exec();
    });
  }

  /** Whether `completeStream` marked the stream (for tests and metrics; the middleware does not need it). */
  async isStreamComplete(streamId: string): Promise<boolean> {
    const { meta } = this.keys(streamId);
    const [startSeq, complete] = (await this.deadline((client) => client.multi().hGet(meta, 'startSeq').hGet(meta, 'complete').exec())) as [unknown, unknown];
    return typeof startSeq === 'string' && startSeq === complete;
  }

  /** Runs `operation` within `commandTimeoutMs`, on the client with the deadline's abort signal. */
  private deadline<T>(operation: (client: RedisEventStoreClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.deadlines.run(operation);
  }

  /** Remembers (a bounded while) that a stream was marked complete by the write of its response. */
  private markedByResponse(streamId: string): void {
    if (this.completedByResponse.size >= MAX_REMEMBERED_COMPLETIONS) this.completedByResponse.clear();
    this.completedByResponse.add(streamId);
  }

  private keys(streamId: string): { log: string; meta: string } {
    const base = `${this.keyPrefix}${hashTag(streamId)}`;
    return { log: `${base}:log`, meta: `${base}:meta` };
  }
}

/**
 * Stores one event: the store-wide `INCR`, the stream's `startSeq` (first write of an incarnation), the entry
 * (`{"seq":<seq>,` + the rest of its JSON), the trim and both TTLs; with `ARGV[4]` '1' (a response, the stream's
 * last event) also the `complete` mark. Returns the seq.
 */
const STORE_EVENT_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
redis.call('HSETNX', KEYS[3], 'startSeq', seq)
local tail = ARGV[1]
local entry
if tail == '}' then entry = '{"seq":' .. seq .. '}' else entry = '{"seq":' .. seq .. ',' .. tail end
redis.call('RPUSH', KEYS[2], entry)
if ARGV[4] == '1' then redis.call('HSET', KEYS[3], 'complete', redis.call('HGET', KEYS[3], 'startSeq')) end
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return seq
`;

/**
 * Marks a stream complete: `complete` takes the incarnation's `startSeq`, so a mark never leaks onto a later
 * incarnation. An unknown or expired stream is left alone (the hash, when there, already has its TTL).
 */
const COMPLETE_STREAM_SCRIPT = new RedisScript(`
local startSeq = redis.call('HGET', KEYS[1], 'startSeq')
if not startSeq then return 0 end
redis.call('HSET', KEYS[1], 'complete', startSeq)
return 1
`);

/** Streams remembered as completed by their response's write; past it the memory is dropped (completeStream then sends its command). */
const MAX_REMEMBERED_COMPLETIONS = 10_000;

/** A JSON-RPC response: the last event of a request's stream. */
function isResponse(event: SseEvent): boolean {
  const message = event.message;
  return message !== undefined && !('method' in message) && ('result' in message || 'error' in message);
}

/** The JSON of an entry after its opening brace and seq: `"message":…,"retry":…}` (the message's text reused). */
function entryTail(event: SseEvent): string {
  const parts: string[] = [];
  if (event.message !== undefined) parts.push(`"message":${event.data ?? JSON.stringify(event.message)}`);
  if (event.retry !== undefined) parts.push(`"retry":${JSON.stringify(event.retry)}`);
  return `${parts.join(',')}}`;
}
