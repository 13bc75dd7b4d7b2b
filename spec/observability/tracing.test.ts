/**
 * `tracing: true`: one SERVER span per JSON-RPC request, registered through the global OpenTelemetry API (an
 * SDK tracer provider with an in-memory exporter here), continuing the W3C trace context of `params._meta` or of the
 * `traceparent` header, parent of the spans a handler starts, labelled after the MCP semantic conventions.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, type ContextManager, context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { z } from 'zod';
import { McpServer, type McpMiddlewareOptions } from '../../lib/index.js';
import { clientHeaders, initializeRequest, sseMessages, toolCall } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders } from '../helpers/modern.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

/** What `@opentelemetry/context-async-hooks` provides (not a dependency here): the active context per async chain. */
class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const track = closeAfterEach();
const VERSION = '2025-11-25';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

function buildServer() {
  const server = new McpServer({ name: 'traced', version: '1.0.0' });
  server.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('nested', {}, async () => {
    // A span the handler starts: a child of the request's span.
    await trace.getTracer('app').startActiveSpan('lookup', async (span) => {
      await new Promise((resolve) => setImmediate(resolve));
      span.end();
    });
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  return server;
}

async function traced(options: Partial<McpMiddlewareOptions> = {}) {
  const served = track(await serve({ server: buildServer(), tracing: true, ...options }));
  await served.middleware.ready();
  return served;
}

async function initialize(url: string): Promise<string> {
  const res = await request(url).post('').set(clientHeaders(VERSION)).send(initializeRequest(VERSION));
  return res.headers['mcp-session-id'] as string;
}

const spanNamed = (name: string) => {
  const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
  if (!span) throw new Error(`no span ${name} among ${exporter.getFinishedSpans().map((candidate) => candidate.name).join(', ')}`);
  return span;
};

test('a session tools/call: a SERVER span with MCP attributes, child of the traceparent in params._meta', async () => {
  const served = await traced();
  const sessionId = await initialize(served.url);
  const traceparent = `00-${TRACE_ID}-${PARENT_ID}-01`;
  const res = await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(5, 'add', { a: 1, b: 2 }, { traceparent }));
  expect(sseMessages(res.text).at(-1)).toMatchObject({ id: 5, result: {} });
  const span = spanNamed('tools/call add');
  expect(span.kind).toBe(SpanKind.SERVER);
  expect(span.spanContext().traceId).toBe(TRACE_ID);
  expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
  expect(span.attributes).toEqual({
    'rpc.system': 'jsonrpc',
    'rpc.method': 'tools/call',
    'mcp.method.name': 'tools/call',
    'jsonrpc.protocol.version': '2.0',
    'jsonrpc.request.id': '5',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'add',
    'mcp.tool.name': 'add',
    'mcp.session.id': sessionId,
    'mcp.protocol.version': VERSION,
  });
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
  // initialize has its span too, with the session it created.
  expect(spanNamed('initialize').attributes['mcp.session.id']).toBe(sessionId);
});

test('a stateless request without _meta trace context continues the traceparent header', async () => {
  const served = await traced();
  const params = { name: 'add', arguments: { a: 2, b: 2 } };
  const res = await request(served.url)
    .post('')
    .set({ ...modernHeaders('tools/call', params), traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` })
    .send(modernBody({ id: 1, method: 'tools/call', params }));
  expect(res.body).toMatchObject({ id: 1, result: { content: [{ text: '4' }] } });
  const span = spanNamed('tools/call add');
  expect(span.spanContext().traceId).toBe(TRACE_ID);
  expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
  expect(span.attributes['mcp.protocol.version']).toBe('2026-07-28');
  expect(span.attributes['mcp.session.id']).toBeUndefined();
});

test('_meta wins over the header; spans the handler starts are children of the request span', async () => {
  const served = await traced();
  const sessionId = await initialize(served.url);
  const metaParent = '1111111111111111';
  await request(served.url)
    .post('')
    .set({ ...clientHeaders(VERSION, sessionId), traceparent: `00-${'f'.repeat(32)}-${'2'.repeat(16)}-01` })
    .send(toolCall(6, 'nested', {}, { traceparent: `00-${TRACE_ID}-${metaParent}-01` }));
  const requestSpan = spanNamed('tools/call nested');
  expect(requestSpan.parentSpanContext?.spanId).toBe(metaParent);
  const inner = spanNamed('lookup');
  expect(inner.spanContext().traceId).toBe(TRACE_ID);
  expect(inner.parentSpanContext?.spanId).toBe(requestSpan.spanContext().spanId);
});

test('an error response sets the span status and error.type; no trace context starts a new trace', async () => {
  const served = await traced();
  const sessionId = await initialize(served.url);
  await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(7, 'no-such-tool'));
  const span = spanNamed('tools/call');
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  expect(span.attributes['error.type']).toBe('-32602');
  expect(span.attributes['rpc.jsonrpc.error_code']).toBe(-32602);
  expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
  expect(span.parentSpanContext).toBeUndefined();
});

test('without the tracing option no span is started', async () => {
  const served = track(await serve({ server: buildServer() }));
  const sessionId = await initialize(served.url);
  await request(served.url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(8, 'add', { a: 1, b: 1 }));
  expect(exporter.getFinishedSpans()).toEqual([]);
});
