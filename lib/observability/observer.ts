import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcMessage, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { holdsQueue, type QueuedEventSource, type SseEvent, type SseStream } from '../store/sse-event.js';
import type { McpEvent, ServingEra } from './events.js';
import type { OtelApi, OtelContext, OtelSpan, OtelTracer } from './otel-api.js';
import { loadOpenTelemetry, requestSpan } from './tracing.js';

/**
 * The middleware's observability: the `onEvent` hook and, with `tracing`, OpenTelemetry spans. `active` is false
 * when neither is configured; the HTTP layer checks it and then allocates nothing for observation.
 */
export class Observer {
  /** An event hook or tracing is configured. */
  readonly active: boolean;
  /** Settles once `@opentelemetry/api` is loaded (or failed to load); requests before that are not traced. */
  readonly loaded: Promise<void>;
  private otel: { api: OtelApi; tracer: OtelTracer } | undefined;

  constructor(
    private readonly onEvent: ((event: McpEvent) => void) | undefined,
    tracing: boolean,
    private readonly onError: (error: unknown) => void,
    /** Whether the server has this (enabled) tool: only such names are reported (clients choose what they send). */
    readonly isKnownTool: (name: string) => boolean,
  ) {
    this.active = onEvent !== undefined || tracing;
    this.loaded = tracing
      ? loadOpenTelemetry().then(
          (api) => {
            this.otel = { api, tracer: api.trace.getTracer('mcp-express') };
          },
          (error: unknown) => onError(new Error('mcpMiddleware option tracing: true needs the package @opentelemetry/api; install it (npm install @opentelemetry/api) or drop the option. Requests are served without spans.', { cause: error })),
        )
      : Promise.resolve();
  }

  /** Whether events are reported (an `onEvent` hook is set). */
  get reports(): boolean {
    return this.onEvent !== undefined;
  }

  /** Hands an event to the hook; a hook that throws goes to `onError` and never breaks the request. */
  emit(event: McpEvent): void {
    if (!this.onEvent) return;
    try {
      this.onEvent(event);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Starts observing one JSON-RPC request: its `request.start` event and its span. */
  begin(era: ServingEra, request: JsonRpcRequest, sessionId: string | undefined, protocolVersion: string | undefined, headers: IncomingHttpHeaders): RequestTracking {
    return new RequestTracking(this, era, request, sessionId, protocolVersion, headers, this.otel);
  }
}

/** One request under observation, from dispatch to the end of its reply. */
export class RequestTracking {
  private readonly startedAt = performance.now();
  private readonly toolName: string | undefined;
  private outcome: 'ok' | 'error' | undefined;
  private errorCode: number | undefined;
  private ended = false;
  private readonly span: OtelSpan | undefined;
  private readonly spanContext: OtelContext | undefined;
  private readonly otelApi: OtelApi | undefined;

  constructor(
    private readonly observer: Observer,
    private readonly era: ServingEra,
    private readonly request: JsonRpcRequest,
    /** The session (set by `initialize` once it has one). */
    public sessionId: string | undefined,
    private readonly protocolVersion: string | undefined,
    headers: IncomingHttpHeaders,
    otel: { api: OtelApi; tracer: OtelTracer } | undefined,
  ) {
    const name = request.method === 'tools/call' ? request.params?.name : undefined;
    this.toolName = typeof name === 'string' && observer.isKnownTool(name) ? name : undefined;
    if (otel) {
      this.span = requestSpan(otel.api, otel.tracer, request, this.toolName, sessionId, protocolVersion, headers);
      this.spanContext = otel.api.trace.setSpan(otel.api.context.active(), this.span);
      this.otelApi = otel.api;
    }
    if (observer.reports) observer.emit({ type: 'request.start', ...this.fields() });
  }

  /** Runs `fn` (the dispatch) with the request's span active, so spans the handler starts are its children. */
  run<T>(fn: () => T): T {
    return this.spanContext ? this.otelApi!.context.with(this.spanContext, fn) : fn();
  }

  /** A message of the reply: the request's final response decides the outcome (the first one counts). */
  see(message: JsonRpcMessage | undefined): void {
    if (this.outcome !== undefined || message === undefined || 'method' in message || message.id !== this.request.id) return;
    if ('error' in message) this.failed(message.error?.code);
    else this.outcome = 'ok';
  }

  /**
   * The request was answered with an error outside its stream (a 404 for an unknown session, a 500); `replaces`
   * when that error replaced a response already seen (a result that could not be sent).
   */
  failed(code: number | undefined, replaces = false): void {
    if (this.outcome !== undefined && !replaces) return;
    this.outcome = 'error';
    this.errorCode = code;
  }

  /** The stream of the reply, watched for the final response. */
  watch(stream: SseStream): SseStream {
    return { [Symbol.asyncIterator]: () => watchIterator(stream[Symbol.asyncIterator](), this) };
  }

  /** The reply is over: the `request.end` event, and the span ends. Only the first call counts. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const outcome = this.outcome ?? 'cancelled';
    if (this.span) {
      if (this.sessionId !== undefined) this.span.setAttribute('mcp.session.id', this.sessionId);
      if (this.outcome === 'error') {
        const code = this.errorCode === undefined ? 'error' : String(this.errorCode);
        this.span.setAttribute('error.type', code);
        if (this.errorCode !== undefined) this.span.setAttribute('rpc.jsonrpc.error_code', this.errorCode);
        this.span.setStatus({ code: this.otelApi!.SpanStatusCode.ERROR, message: `JSON-RPC error ${code}` });
      } else if (outcome === 'cancelled') {
        this.span.setAttribute('mcp.request.cancelled', true);
      }
      this.span.end();
    }
    if (!this.observer.reports) return;
    const event: McpEvent = { type: 'request.end', ...this.fields(), durationMs: performance.now() - this.startedAt, outcome };
    if (this.errorCode !== undefined) event.errorCode = this.errorCode;
    this.observer.emit(event);
  }

  private fields(): { era: ServingEra; method: string; requestId: string | number; toolName?: string; sessionId?: string; protocolVersion?: string } {
    const fields: ReturnType<RequestTracking['fields']> = { era: this.era, method: this.request.method, requestId: this.request.id };
    if (this.toolName !== undefined) fields.toolName = this.toolName;
    if (this.sessionId !== undefined) fields.sessionId = this.sessionId;
    if (this.protocolVersion !== undefined) fields.protocolVersion = this.protocolVersion;
    return fields;
  }
}

/**
 * Passes a stream's events through, showing each message to the tracking. Hand-written (not an async generator):
 * `return()` must reach the stream at once even while a `next()` is pending, as the HTTP layer relies on it.
 */
function watchIterator(inner: AsyncIterator<SseEvent>, tracking: RequestTracking): AsyncIterator<SseEvent> {
  const see = (event: SseEvent) => tracking.see(event.message ?? parseData(event.data));
  const next = async () => {
    const result = await inner.next();
    if (!result.done) see(result.value);
    return result;
  };
  const end = async (value?: unknown): Promise<IteratorResult<SseEvent>> => (inner.return ? inner.return(value) : { value: undefined, done: true });
  if (!holdsQueue(inner)) return { next, return: end };
  // A channel's queued events are seen as they are taken, so the HTTP layer batches a watched reply as any other.
  const queued: QueuedEventSource = {
    next,
    return: end,
    takeQueued() {
      const event = inner.takeQueued();
      if (event !== undefined) see(event);
      return event;
    },
    get exhausted() {
      return inner.exhausted;
    },
  };
  return queued;
}

/** The message of an event that carries only its JSON text (a replayed event). */
function parseData(data: string | undefined): JsonRpcMessage | undefined {
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data) as JsonRpcMessage;
  } catch {
    return undefined;
  }
}
