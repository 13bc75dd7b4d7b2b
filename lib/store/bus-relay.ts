import type { MessageBus } from './message-bus.js';

/**
 * Carries one kind of event through the message bus, so that the listeners of every instance hear an event raised
 * on any one of them: events raised here (through `attach`'s publish function) are published on `channel`, and
 * what the bus delivers (this instance's own events included) goes to the local listeners. When the bus refuses a
 * publish the event still reaches this instance's listeners. Deliveries that fail `isEvent` are dropped.
 */
export class BusRelay<T> {
  private readonly listeners = new Set<(event: T) => void>();
  private readonly detach: () => void;
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;
  private subscribeError: unknown;

  constructor(
    private readonly bus: MessageBus,
    private readonly channel: string,
    /** Connects the source of events: calls the given function with each event; returns the disconnect function. */
    attach: (publish: (event: T) => void) => () => void,
    private readonly isEvent: (value: unknown) => value is T,
    private readonly onError: (error: unknown) => void,
  ) {
    this.detach = attach((event) => {
      this.bus.publish(this.channel, event).catch((error: unknown) => {
        this.onError(error);
        this.deliver(event);
      });
    });
    this.subscribed = this.bus.subscribe(this.channel, (message) => this.deliver(message)).catch((error: unknown) => {
      this.subscribeError = error;
      this.onError(error);
      return undefined;
    });
  }

  /** Resolves once events from the bus are being received; rejects when the bus refused the subscription. */
  async ready(): Promise<void> {
    await this.subscribed;
    if (this.subscribeError !== undefined) throw this.subscribeError;
  }

  /** Calls `listener` with every event of the deployment; returns the unsubscribe function. */
  subscribe(listener: (event: T) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async stop(): Promise<void> {
    this.detach();
    this.listeners.clear();
    const unsubscribe = await this.subscribed;
    await unsubscribe?.().catch(this.onError);
  }

  private deliver(value: unknown): void {
    if (!this.isEvent(value)) return;
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        // A listener that throws must not stop the others.
        this.onError(error);
      }
    }
  }
}
