import { defaultOnError } from '../defaults.js';
import type { MessageBus } from '../store/message-bus.js';
import { checkCommandTimeout, CommandDeadlines, throwIfPastDeadline, withDeadline } from './command-deadline.js';
import { isClusterClient } from './client-kind.js';
import { REDIS_DEFAULTS } from './redis-defaults.js';

/** A message listener as node-redis calls it: the message text (a Buffer only in buffer mode), then the channel. */
type RawListener = (message: string | Buffer, channel: string | Buffer) => unknown;

/**
 * The connection `RedisMessageBus` subscribes on: what `duplicate()` of a node-redis client (`createClient()`) or
 * cluster client (`createCluster()`) returns.
 */
export interface RedisMessageBusSubscriber {
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  subscribe(channel: string, listener: RawListener): Promise<unknown>;
  unsubscribe(channel: string, listener: RawListener): Promise<unknown>;
  sSubscribe(channel: string, listener: RawListener): Promise<unknown>;
  sUnsubscribe(channel: string, listener: RawListener): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
}

/**
 * The subset of a connected node-redis client (`redis` v5 or v6) that `RedisMessageBus` uses: `createClient()`,
 * or `createCluster()` for a Redis Cluster.
 */
export interface RedisMessageBusClient {
  publish(channel: string, message: string): Promise<unknown>;
  sPublish(channel: string, message: string): Promise<unknown>;
  /** A new client with the same options (node-redis `duplicate()`), which the bus connects and subscribes on. */
  duplicate(): RedisMessageBusSubscriber;
}

export interface RedisMessageBusOptions {
  /**
   * Prefix of every Redis channel the bus uses (`<prefix><channel>`). Instances that should hear each other use
   * the same prefix. Defaults to `'mcp:bus:'`.
   */
  channelPrefix?: string;
  /**
   * Sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7+): each channel lives on the cluster node of its slot,
   * instead of every message going to every node (`PUBLISH`). Always on for a node-redis cluster client
   * (`createCluster()`, recognised by its `getSlotRandomNode` method; `false` is refused there, since node-redis
   * sends each `PUBLISH` to a random node and one publisher's messages could overtake each other); `true` also works
   * on a single Redis 7+. Every instance of a deployment must use the same setting: sharded and classic channels do
   * not hear each other. Defaults to `true` for a cluster client, `false` otherwise.
   */
  sharded?: boolean;
  /**
   * Milliseconds `publish`, `subscribe` and an unsubscribe wait for Redis (connecting the subscriber included)
   * before they reject with `RedisTimeoutError`; `0` waits as long as the client does. Defaults to `2000`.
   */
  commandTimeoutMs?: number;
  /**
   * Called with errors no caller can be told about: those of the subscriber connection (node-redis reports every
   * failed reconnection attempt while Redis is down), a message on a bus channel that is not JSON, a listener that
   * threw. Defaults to logging with `console.error`.
   */
  onError?: (error: unknown) => void;
}

/**
 * A `MessageBus` over Redis pub/sub: what one instance publishes reaches the subscribers of every instance that
 * uses the same Redis and `channelPrefix`. Messages travel as JSON text; each listener gets its own parsed copy.
 * At most once, no persistence: messages published while a subscriber is disconnected are not delivered to it.
 *
 * Publishing uses the client given. Subscribing needs a connection of its own (a node-redis connection in
 * subscriber mode runs nothing else), so on the first `subscribe` the bus makes one with `client.duplicate()`,
 * connects it, and closes it in `close()`; the client given is never taken over or closed. node-redis reconnects
 * the subscriber and subscribes it again by itself after an outage.
 */
export class RedisMessageBus implements MessageBus {
  private readonly client: RedisMessageBusClient;
  private readonly channelPrefix: string;
  private readonly sharded: boolean;
  private readonly commandTimeoutMs: number;
  /** The deadlines of publishes (the frequent operation; subscriptions use one deadline each). */
  private readonly publishes: CommandDeadlines<RedisMessageBusClient>;
  private readonly onError: (error: unknown) => void;
  private subscriber: Promise<RedisMessageBusSubscriber> | undefined;
  /** The subscriber connection once made, for close(). */
  private connection: RedisMessageBusSubscriber | undefined;
  /** Stops the delivery of each live subscription (for close()). */
  private readonly deactivators = new Set<() => void>();
  private closed = false;

  constructor(client: RedisMessageBusClient, options: RedisMessageBusOptions = {}) {
    this.client = client;
    this.channelPrefix = options.channelPrefix ?? REDIS_DEFAULTS.busChannelPrefix;
    const cluster = isClusterClient(client);
    if (cluster && options.sharded === false) {
      throw new RangeError(
        'RedisMessageBus: sharded: false is not supported on a cluster client (node-redis sends each PUBLISH to a random node, so messages could arrive out of order); leave sharded unset (sharded pub/sub needs Redis 7+)',
      );
    }
    this.sharded = options.sharded ?? cluster;
    this.commandTimeoutMs = checkCommandTimeout(options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs);
    this.publishes = new CommandDeadlines('RedisMessageBus', client, this.commandTimeoutMs);
    this.onError = options.onError ?? defaultOnError;
  }

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.closed) throw new Error('RedisMessageBus: publish after close()');
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError('RedisMessageBus: the message is not a JSON value');
    const name = this.channelPrefix + channel;
    // A publish still queued at the deadline is dropped: a caller told it failed may publish again.
    await this.publishes.run((client) => {
      return this.sharded ? client.sPublish(name, text) : client.publish(name, text);
    });
  }

  async subscribe(channel: string, listener: (message: unknown) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('RedisMessageBus: subscribe after close()');
    const name = this.channelPrefix + channel;
    let active = true;
    // One node-redis listener per subscription: two subscriptions of one channel are two listeners, each called.
    const raw: RawListener = (text) => {
      if (active) this.deliver(channel, String(text), listener);
    };
    const deactivate = () => {
      active = false;
      this.deactivators.delete(deactivate);
    };
    let subscribedOn: RedisMessageBusSubscriber | undefined;
    const unsubscribe = async (): Promise<void> => {
      if (!active) return;
      deactivate();
      if (subscribedOn && !this.closed) await this.deadline(() => this.redisUnsubscribe(subscribedOn!, name, raw));
    };
    await this.deadline(async (signal) => {
      const subscriber = await this.connectSubscriber();
      throwIfPastDeadline(signal);
      await (this.sharded ? subscriber.sSubscribe(name, raw) : subscriber.subscribe(name, raw));
      if (signal.aborted) {
        // The caller was told it failed: undo the subscription that came through late.
        active = false;
        this.redisUnsubscribe(subscriber, name, raw).catch(this.onError);
        return;
      }
      subscribedOn = subscriber;
    });
    if (this.closed) {
      active = false;
      throw new Error('RedisMessageBus: closed while subscribing');
    }
    this.deactivators.add(deactivate);
    return unsubscribe;
  }

  /** Ends every subscription and closes the subscriber connection the bus made (never the client it was given). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const deactivate of [...this.deactivators]) deactivate();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (!subscriber) return;
    // A subscriber still connecting is closed too, once connected; one that never connects was destroyed already.
    const connection = this.connection ?? (await subscriber.catch(() => undefined));
    if (!connection) return;
    try {
      await withDeadline('RedisMessageBus', this.commandTimeoutMs, () => connection.close());
    } catch {
      connection.destroy(); // Redis is not answering: drop the connection without waiting for it
    }
  }

  private deliver(channel: string, text: string, listener: (message: unknown) => void): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.onError(new Error(`RedisMessageBus: a message on channel ${JSON.stringify(channel)} is not JSON (published by something other than a RedisMessageBus?); ignored`));
      return;
    }
    try {
      listener(message);
    } catch (error) {
      this.onError(error);
    }
  }

  /** The subscriber connection, made and connected on first use; a failed attempt is forgotten so the next retries. */
  private connectSubscriber(): Promise<RedisMessageBusSubscriber> {
    if (!this.subscriber) {
      const connection = this.client.duplicate();
      connection.on('error', (error) => this.onError(error));
      const connecting = connection.connect().then(
        () => {
          this.connection = connection;
          return connection;
        },
        (error: unknown) => {
          if (this.subscriber === connecting) this.subscriber = undefined;
          connection.destroy();
          throw error;
        },
      );
      this.subscriber = connecting;
    }
    return this.subscriber;
  }

  private redisUnsubscribe(subscriber: RedisMessageBusSubscriber, name: string, raw: RawListener): Promise<unknown> {
    return this.sharded ? subscriber.sUnsubscribe(name, raw) : subscriber.unsubscribe(name, raw);
  }

  private deadline<T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline('RedisMessageBus', this.commandTimeoutMs, operation);
  }
}
