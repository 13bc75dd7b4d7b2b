/**
 * Helpers for 2026-07-28 (stateless era) requests: the per-request `_meta` envelope, the SEP-2243 standard
 * headers, and a raw node:http client that sends exactly the headers it is given (names keep their case, nothing
 * is added but Host/Content-Length), so header rules can be tested on the wire.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { McpError, McpServer, type McpMiddlewareOptions, type RequestContext } from '../../lib/index.js';
import { serve, type Served } from './serve.js';
import { messagesOf, parseSse } from './sse.js';
import { ACCEPT_BOTH, sleep } from './wire.js';

export const MODERN = '2026-07-28';
export { ACCEPT_BOTH, sleep, waitUntil } from './wire.js';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export const FULL_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** The standard envelope; `overrides` win, and a key set to `undefined` is left out. */
export function envelope(overrides: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [META_PROTOCOL_VERSION]: MODERN,
    [META_CLIENT_INFO]: { name: 'stateless-spec', version: '1.0.0' },
    [META_CLIENT_CAPABILITIES]: capabilities,
    ...overrides,
  };
  for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
  return meta;
}

/** Which body field `Mcp-Name` mirrors. */
const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export interface ModernRequestInit {
  id?: string | number;
  method: string;
  /** Params without `_meta`; the envelope is added unless `meta` is `null`. */
  params?: Record<string, unknown>;
  /** The `_meta` to send; `null` sends none. Defaults to `envelope()`. */
  meta?: Record<string, unknown> | null;
  /** Extra or replacement headers; a header set to `undefined` is not sent. Names are sent as given. */
  headers?: Record<string, string | undefined>;
  /** Raw body to send instead of the built one. */
  rawBody?: string;
}

let nextId = 1000;

/** The JSON-RPC body of a modern request. */
export function modernBody(init: ModernRequestInit): Record<string, unknown> {
  const params: Record<string, unknown> = { ...init.params };
  const meta = init.meta === undefined ? envelope() : init.meta;
  if (meta !== null) params._meta = { ...(init.params?._meta as object | undefined), ...meta };
  const body: Record<string, unknown> = { jsonrpc: '2.0', method: init.method, params };
  if (init.id !== undefined) body.id = init.id;
  return body;
}

/** The standard headers of a modern request (SEP-2243), with `overrides` applied (undefined removes one). */
export function modernHeaders(method: string, params: Record<string, unknown> | undefined, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    Accept: ACCEPT_BOTH,
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
  };
  const field = NAME_FIELD[method];
  if (field !== undefined && typeof params?.[field] === 'string') headers['Mcp-Name'] = params[field] as string;
  // Overrides replace a default whatever the case of its name.
  for (const [name, value] of Object.entries(overrides)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = value;
  return result;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  text: string;
  /** The JSON body (JSON replies), else undefined. */
  json: any;
  /** Every JSON-RPC message: the SSE messages, or the JSON body. */
  messages: any[];
  /** The final response (result or error), if any. */
  final: any;
  /** True when the reply was an SSE stream. */
  sse: boolean;
}

/** Sends raw headers and body over node:http and reads the whole response. */
export function rawRequest(port: number, method: string, headers: Record<string, string>, body?: string, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const requestHeaders = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method, headers: requestHeaders, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve(toReply(res.statusCode ?? 0, res.headers, text));
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function toReply(status: number, headers: IncomingHttpHeaders, text: string): Reply {
  const contentType = String(headers['content-type'] ?? '');
  const sse = contentType.startsWith('text/event-stream');
  let json: any;
  let messages: any[] = [];
  if (sse) {
    messages = messagesOf(parseSse(text));
  } else if (text !== '') {
    try {
      json = JSON.parse(text);
      messages = [json];
    } catch {
      json = undefined;
    }
  }
  const final = messages.find((message) => !('method' in message) && ('result' in message || 'error' in message));
  return { status, headers, contentType, text, json, messages, final, sse };
}

/** POSTs a modern request with the standard headers (adjusted by `init.headers`). */
export function modern(port: number, init: ModernRequestInit): Promise<Reply> {
  const body = modernBody({ id: nextId++, ...init });
  const headers = modernHeaders(init.method, init.params, init.headers);
  return rawRequest(port, 'POST', headers, init.rawBody ?? JSON.stringify(body));
}

/** A modern tools/call. */
export function callTool(port: number, name: string, args: Record<string, unknown> = {}, init: Partial<ModernRequestInit> = {}): Promise<Reply> {
  return modern(port, { ...init, method: 'tools/call', params: { name, arguments: args, ...init.params } });
}

/** The result of a reply, failing loudly with the reply when there is none. */
export function resultOf(reply: Reply): any {
  if (!reply.final || !('result' in reply.final)) throw new Error(`expected a result, got ${reply.status}: ${reply.text}`);
  return reply.final.result;
}

export function textOf(result: any): string {
  return (result?.content ?? []).map((block: any) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

// ---------------------------------------------------------------------------------------------------------------
// A server with the fixtures the stateless specs need

export interface Recorder {
  /** Abort state of `slow` calls, by request id, when their timer or signal fired. */
  slow: Map<string | number, { aborted: boolean; finished: boolean }>;
  /** Resolves the waiters once a `slow` call started. */
  slowStarted: Array<() => void>;
}

export function buildModernServer(options: ConstructorParameters<typeof McpServer>[1] = {}, recorder?: Recorder): McpServer {
  const server = new McpServer({ name: 'stateless-spec', version: '2.0.0' }, { instructions: 'Stateless test server', ...options });
  server.tool('echo', { description: 'Echo text', inputSchema: { text: z.string().optional() } }, ({ text }) => ({
    content: [{ type: 'text', text: text ?? 'empty' }],
  }));
  server.tool('whoami', { description: 'Reports the protocol version and session the handler sees' }, (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify({ protocolVersion: ctx.protocolVersion, sessionId: ctx.sessionId ?? null, clientInfo: ctx.clientInfo ?? null }) }],
  }));
  server.tool(
    'region_tool',
    { description: 'Echoes a header-mirrored argument', inputSchema: { region: z.string().optional(), note: z.string().optional() }, propertyAnnotations: { region: { 'x-mcp-header': 'Region' } } },
    ({ region }) => ({ content: [{ type: 'text', text: `region=${region}` }] }),
  );
  server.tool(
    'count_tool',
    { description: 'Echoes an integer header-mirrored argument', inputSchema: { count: z.number().int() }, propertyAnnotations: { count: { 'x-mcp-header': 'Count' } } },
    ({ count }) => ({ content: [{ type: 'text', text: `count=${count}` }] }),
  );
  server.tool(
    'region_sampler',
    { description: 'Header-mirrored argument and the sampling capability', inputSchema: { region: z.string() }, propertyAnnotations: { region: { 'x-mcp-header': 'Region' } } },
    async ({ region }, ctx) => {
      await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: region } }], maxTokens: 10 });
      return { content: [{ type: 'text', text: region }] };
    },
  );
  server.tool('needs_sampling', { description: 'Needs the sampling capability' }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 });
    return { content: [{ type: 'text', text: `LLM said: ${JSON.stringify(answer.content)}` }] };
  });
  server.tool('progress_tool', { description: 'Sends progress, then answers' }, async (_args, ctx) => {
    ctx.progress(0, 100, 'start');
    await sleep(5);
    ctx.progress(50, 100, 'half');
    await sleep(5);
    ctx.progress(100, 100, 'done');
    return { content: [{ type: 'text', text: 'progressed' }] };
  });
  server.tool('progress_then_fail', { description: 'Sends progress, then fails with -32602' }, async (_args, ctx) => {
    ctx.progress(1, 2, 'about to fail');
    await sleep(5);
    throw new McpError(-32602, 'progress_then_fail always fails', { reason: 'test' });
  });
  server.tool('log_tool', { description: 'Logs at every level from debug to error' }, async (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, `${level} message`, 'log_tool');
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.tool('slow', { description: 'Awaits a long timer; records whether its signal fired' }, async (_args, ctx) => {
    const state = { aborted: false, finished: false };
    recorder?.slow.set(ctx.requestId, state);
    ctx.progress(1, 2, 'started');
    for (const waiter of recorder?.slowStarted.splice(0) ?? []) waiter();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    state.aborted = ctx.signal.aborted;
    state.finished = true;
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  // Multi-round-trip fixtures: the same code serves both eras.
  server.tool('greet', { description: 'Asks the user for their name' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'user_name' },
    );
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: `No name (${answer.action})` }] };
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}!` }] };
  });
  server.tool('two_step', { description: 'Asks two questions in sequence' }, async (_args, ctx) => {
    const first = await ctx.elicit(
      { message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'step1' },
    );
    const second = await ctx.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      { key: 'step2' },
    );
    return { content: [{ type: 'text', text: `${String(first.content?.name)} likes ${String(second.content?.color)}` }] };
  });
  server.tool('parallel_inputs', { description: 'Asks for elicitation, sampling and roots at once' }, async (_args, ctx) => {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    const greetingText = (greeting.content as { text?: string }).text;
    return { content: [{ type: 'text', text: `${greetingText} ${String(name.content?.name)} (${roots.roots.length} roots)` }] };
  });
  server.resource('static', 'test://static-text', { mimeType: 'text/plain', description: 'Static text' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'static content' }],
  }));
  server.resourceTemplate('template', 'test://template/{id}/data', { mimeType: 'application/json' }, (uri, variables) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id: variables.id }) }],
  }));
  server.prompt('simple_prompt', { description: 'A simple prompt', complete: { a: (value) => ['alpha', 'apple'].filter((word) => word.startsWith(value)) } }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt.' } }],
  }));
  return server;
}

export function newRecorder(): Recorder {
  return { slow: new Map(), slowStarted: [] };
}

export interface ModernHarness extends Served {
  server: McpServer;
  recorder: Recorder;
}

/** Serves `buildModernServer()` (or the given server) on 127.0.0.1. */
export async function startModern(options: Partial<McpMiddlewareOptions> = {}, serverOptions: ConstructorParameters<typeof McpServer>[1] = {}): Promise<ModernHarness> {
  const recorder = newRecorder();
  const server = options.server ?? buildModernServer(serverOptions, recorder);
  const served = await serve({ sseKeepAlive: 0, ...options, server });
  return Object.assign(served, { server, recorder });
}

export type { RequestContext };
