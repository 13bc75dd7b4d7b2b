import type { MessageBus } from './message-bus.js';

/**
 * The bus of one process: subscribers of this object get what is published on it. Messages are copied through JSON
 * on the way (as a shared bus would), so a subscriber never shares an object with the publisher, and delivered on a
 * later microtask, never inside `publish`. Several middleware instances given the same bus behave like instances of
 * a cluster.
 */
export class InMemoryMessageBus implements MessageBus {
  private readonly channels = new Map<string, Set<(message: unknown) => void>>();
  private closed = false;

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.closed) throw new Error('InMemoryMessageBus: publish after close()');
    const listeners = this.channels.get(channel);
    if (!listeners || listeners.size === 0) return;
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError('InMemoryMessageBus: the message is not a JSON value');
    for (const listener of [...listeners]) {
      queueMicrotask(() => {
        if (listeners.has(listener)) listener(JSON.parse(text));
      });
    }
  }

  async subscribe(channel: string, listener: (message: unknown) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('InMemoryMessageBus: subscribe after close()');
    // Each subscription is its own entry, so one listener subscribed twice gets every message twice.
    const entry = (message: unknown) => listener(message);
    let listeners = this.channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.channels.set(channel, listeners);
    }
    listeners.add(entry);
    return async () => {
      const current = this.channels.get(channel);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.channels.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
  }

  /** Channels with at least one subscriber (for tests and metrics). */
  get channelCount(): number {
    return this.channels.size;
  }
}
