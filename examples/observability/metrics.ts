import type { McpEvent } from 'mcp-express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Prometheus metrics from the middleware's events: `mcpMiddleware({ server, onEvent: mcpMetrics(registry) })`. */
export function mcpMetrics(registry: Registry): (event: McpEvent) => void {
  const requests = new Histogram({
    name: 'mcp_request_duration_seconds',
    help: 'MCP JSON-RPC requests, from dispatch to the end of the reply',
    labelNames: ['method', 'tool', 'era', 'outcome', 'code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const openSessions = new Gauge({ name: 'mcp_sessions_open', help: 'MCP sessions this instance holds', registers: [registry] });
  const sessionEvents = new Counter({
    name: 'mcp_session_events_total',
    help: 'MCP sessions created, restored, expired and closed on this instance',
    labelNames: ['event', 'reason'] as const,
    registers: [registry],
  });
  const resumes = new Counter({ name: 'mcp_stream_resumes_total', help: 'Streams resumed with Last-Event-ID', labelNames: ['era'] as const, registers: [registry] });
  const refusals = new Counter({ name: 'mcp_requests_refused_total', help: 'Requests the Host/Origin checks refused', labelNames: ['status'] as const, registers: [registry] });

  return (event) => {
    switch (event.type) {
      case 'request.end':
        requests.observe(
          {
            // Clients choose the method: an unknown one (-32601) gets one label value, so labels stay a bounded set.
            method: event.errorCode === -32601 ? 'unknown' : event.method,
            tool: event.toolName ?? '',
            era: event.era,
            outcome: event.outcome,
            code: event.errorCode === undefined ? '' : String(event.errorCode),
          },
          event.durationMs / 1000,
        );
        return;
      case 'session.created':
      case 'session.restored':
        openSessions.inc();
        sessionEvents.inc({ event: event.type.slice('session.'.length), reason: '' });
        return;
      case 'session.expired':
      case 'session.closed':
        openSessions.dec();
        sessionEvents.inc({ event: event.type.slice('session.'.length), reason: event.reason ?? '' });
        return;
      case 'stream.resumed':
        resumes.inc({ era: event.era });
        return;
      case 'request.refused':
        refusals.inc({ status: String(event.status) });
        return;
    }
  };
}
