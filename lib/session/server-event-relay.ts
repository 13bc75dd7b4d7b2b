import type { McpServer, ServerEvent } from '../server/mcp-server.js';
import { BusRelay } from '../store/bus-relay.js';
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
 * streams and `subscriptions/listen` streams of every instance get an event emitted on any one of them.
 */
export class ServerEventRelay extends BusRelay<ServerEvent> implements ServerEvents {
  constructor(server: McpServer, bus: MessageBus, onError: (error: unknown) => void) {
    super(bus, SERVER_EVENTS_CHANNEL, (publish) => server.addEventListener(publish), isServerEvent, onError);
  }
}

function isServerEvent(value: unknown): value is ServerEvent {
  const event = value as Partial<ServerEvent> | null;
  return typeof event?.kind === 'string' && typeof event.notification?.method === 'string';
}
