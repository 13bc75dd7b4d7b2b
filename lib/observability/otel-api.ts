/**
 * The part of `@opentelemetry/api` the middleware uses, described here rather than imported: the package is an
 * optional peer dependency, and the published type declarations must compile without it.
 */

/** An OpenTelemetry `Context` (opaque here). */
export type OtelContext = object;

export interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

export interface OtelTracer {
  startSpan(name: string, options: { kind: number; attributes?: Record<string, string | number | boolean> }, context: OtelContext): OtelSpan;
}

export interface OtelTextMapGetter {
  keys(carrier: Record<string, unknown>): string[];
  get(carrier: Record<string, unknown>, key: string): string | string[] | undefined;
}

export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpan(context: OtelContext): OtelSpan | undefined;
  };
  context: {
    active(): OtelContext;
    with<T>(context: OtelContext, fn: () => T): T;
  };
  propagation: {
    extract(context: OtelContext, carrier: Record<string, unknown>, getter: OtelTextMapGetter): OtelContext;
  };
  SpanKind: { SERVER: number };
  SpanStatusCode: { ERROR: number };
}
