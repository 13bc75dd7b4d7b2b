import type { McpServer, ServerEvent } from '../server/mcp-server.js';
import type { MessageBus } from '../store/message-bus.js';

/** Subscribing to the server's change events as the layers of one middleware see them. */
export interface ServerEvents {
  /** Calls `listener` with every change event of the deployment; returns the unsubscribe function. */
  subscribe(listener: (event: ServerEvent) => void): () => void;
}

/** The bus channel of server change events (list_changed, resource updated). */
export const SERVER_EVENTS_CHANNEL = 'server-events';

/**
 * Carries the server's change events (list_changed, resources/updated) through the message bus, so that the GET
 * streams and `subscriptions/listen` streams of every instance get an event emitted on any one of them: events of
 * this server are published, and what the bus delivers (this instance's own events included) goes to the local
 * listeners. When the bus refuses a publish the event still reaches this instance's listeners.
 */
export class ServerEventRelay implements ServerEvents {
  private readonly listeners = new Set<(event: ServerEvent) => void>();
  private readonly detachServer: () => void;
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;
  private subscribeError: unknown;

  constructor(
    server: McpServer,
    private readonly bus: MessageBus,
    private readonly onError: (error: unknown) => void,
  ) {
    this.detachServer = server.addEventListener((event) => {
      this.bus.publish(SERVER_EVENTS_CHANNEL, event).catch((error: unknown) => {
        this.onError(error);
        this.deliver(event);
      });
    });
    this.subscribed = this.bus.subscribe(SERVER_EVENTS_CHANNEL, (message) => this.deliver(message as ServerEvent)).catch((error: unknown) => {
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

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async stop(): Promise<void> {
    this.detachServer();
    this.listeners.clear();
    const unsubscribe = await this.subscribed;
    await unsubscribe?.().catch(this.onError);
  }

  private deliver(event: ServerEvent): void {
    if (!isServerEvent(event)) return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A listener that throws must not stop the others.
        this.onError(error);
      }
    }
  }
}

function isServerEvent(value: unknown): value is ServerEvent {
  const event = value as Partial<ServerEvent> | null;
  return typeof event?.kind === 'string' && typeof event.notification?.method === 'string';
}
