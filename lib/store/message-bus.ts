/**
 * Publish/subscribe by channel across the instances of a deployment: how a client's answer, a cancellation, a
 * DELETE or a server event reaches the instance that needs it. One process uses `InMemoryMessageBus` (the default);
 * a cluster uses a shared one (`RedisMessageBus` from `mcp-express/redis`), and then any instance serves any
 * request. Messages are JSON values; delivery is at most once per subscriber and in publish order per channel from
 * one publisher, with no persistence: a subscriber sees what is published after its `subscribe` resolved.
 *
 * Contract checked by `describeMessageBusContract` (`mcp-express/testing`).
 */
export interface MessageBus {
  /**
   * Sends `message` to every current subscriber of `channel`, on every instance, this one included. Resolves once
   * the bus has taken it (not when it is delivered); rejects when the bus is unreachable.
   */
  publish(channel: string, message: unknown): Promise<void>;
  /**
   * Calls `listener` with every message published on `channel` from the moment the returned promise resolves, until
   * the returned unsubscribe function is called. Listeners are called asynchronously, never inside `publish`.
   * Several subscriptions to one channel each get every message.
   */
  subscribe(channel: string, listener: (message: unknown) => void): Promise<() => Promise<void>>;
  /** Ends every subscription and releases connections the bus opened itself (not the client it was given). */
  close?(): Promise<void>;
}
