import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { OtelApi, OtelContext, OtelSpan, OtelTextMapGetter, OtelTracer } from './otel-api.js';

/** In a variable, so that bundlers and the compiler leave the optional dependency alone. */
const OTEL_API_PACKAGE = '@opentelemetry/api';

/**
 * Loads `@opentelemetry/api` when the app has it (an optional peer dependency). A dynamic `import()` works from the
 * ESM and the CommonJS build alike; the API keeps its registrations (tracer provider, propagator, context manager) on
 * a global, so this copy sees the ones the app made, whichever module format loaded it.
 */
export async function loadOpenTelemetry(): Promise<OtelApi> {
  const loaded = (await import(OTEL_API_PACKAGE)) as Partial<OtelApi> & { default?: Partial<OtelApi> };
  const api = loaded.trace ? loaded : loaded.default;
  if (!api?.trace || !api.context || !api.propagation || !api.SpanKind || !api.SpanStatusCode) {
    throw new Error(`${OTEL_API_PACKAGE} did not export the OpenTelemetry API (trace, context, propagation)`);
  }
  return api as OtelApi;
}

/**
 * The span of one JSON-RPC request, named and labelled after OpenTelemetry's MCP semantic conventions
 * (`tools/call add`, `mcp.method.name`, `gen_ai.tool.name`, `mcp.session.id`…) plus the generic RPC ones
 * (`rpc.system: jsonrpc`, `rpc.method`). Its parent: the trace context in the request's `params._meta`
 * (`traceparent`/`tracestate`, where MCP clients put it), else the active span (an HTTP instrumentation's), else
 * the `traceparent` header; read with the global propagator.
 */
export function requestSpan(
  api: OtelApi,
  tracer: OtelTracer,
  request: JsonRpcRequest,
  toolName: string | undefined,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  headers: IncomingHttpHeaders,
): OtelSpan {
  const attributes: Record<string, string | number | boolean> = {
    'rpc.system': 'jsonrpc',
    'rpc.method': request.method,
    'mcp.method.name': request.method,
    'jsonrpc.protocol.version': '2.0',
    'jsonrpc.request.id': String(request.id),
  };
  if (toolName !== undefined) {
    attributes['gen_ai.operation.name'] = 'execute_tool';
    attributes['gen_ai.tool.name'] = toolName;
    attributes['mcp.tool.name'] = toolName;
  }
  const uri = request.params?.uri;
  if (typeof uri === 'string' && request.method.startsWith('resources/')) attributes['mcp.resource.uri'] = uri;
  if (sessionId !== undefined) attributes['mcp.session.id'] = sessionId;
  if (protocolVersion !== undefined) attributes['mcp.protocol.version'] = protocolVersion;
  const name = toolName === undefined ? request.method : `${request.method} ${toolName}`;
  return tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes }, parentContext(api, request, headers));
}

function parentContext(api: OtelApi, request: JsonRpcRequest, headers: IncomingHttpHeaders): OtelContext {
  const active = api.context.active();
  const meta = request.params?._meta;
  if (meta !== null && typeof meta === 'object' && typeof (meta as { traceparent?: unknown }).traceparent === 'string') {
    return api.propagation.extract(active, meta as Record<string, unknown>, STRING_GETTER);
  }
  if (api.trace.getSpan(active)) return active;
  return api.propagation.extract(active, headers as Record<string, unknown>, STRING_GETTER);
}

/** Reads string fields of `_meta` or of Node's (lower-cased) headers; anything else is absent. */
const STRING_GETTER: OtelTextMapGetter = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key] ?? carrier[key.toLowerCase()];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    return undefined;
  },
};
