import type { McpEvent } from 'mcp-express';
import type { Logger } from 'pino';

/**
 * The middleware's errors and events as pino log lines: `mcpMiddleware({ server, ...mcpLogging(logger) })`.
 * Errors carry their stack (pino's `err` serializer); a request is one line, at its end.
 */
export function mcpLogging(logger: Logger): { onError(error: unknown): void; onEvent(event: McpEvent): void } {
  return {
    onError(error) {
      logger.error({ err: error }, 'mcp-express error');
    },
    onEvent(event) {
      switch (event.type) {
        case 'request.start':
          return; // request.end carries the same fields
        case 'request.end': {
          const { type, ...fields } = event;
          // A server fault (-32603) also reached onError, with its stack.
          const level = event.outcome === 'error' ? 'warn' : 'info';
          logger[level]({ event: type, ...fields, durationMs: Math.round(event.durationMs * 10) / 10 }, `${event.method} ${event.outcome}`);
          return;
        }
        case 'request.refused':
          logger.warn({ event: event.type, status: event.status }, event.message);
          return;
        default: {
          const { type, ...fields } = event;
          logger.info({ event: type, ...fields }, type);
        }
      }
    },
  };
}
