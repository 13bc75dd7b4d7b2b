import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { z } from 'zod';
import { McpServer, type McpMiddlewareOptions, type RequestContext } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';
import { serve, type Served } from './serve.js';
import { messagesOf, parseSseFrames, type SseFrame } from './sse.js';
import { ACCEPT_BOTH, sleep } from './wire.js';

/** The session-era revisions every HTTP test runs against. */
export const SESSION_ERA = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type Era = (typeof SESSION_ERA)[number];

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export { ACCEPT_BOTH, ping, sleep, toolCall } from './wire.js';
// Here `parseSse` is the WHATWG frame parser (comments kept, an unterminated last block left out).
export { parseSseFrames as parseSse, messagesOf, type SseFrame } from './sse.js';

/** Shorthand: the messages of an SSE body (complete blocks only). */
export function sseMessages(text: string): JsonRpcMessage[] {
  return messagesOf(parseSseFrames(text));
}

export function isResponseTo(id: string | number) {
  return (message: JsonRpcMessage) => !('method' in message) && message.id === id;
}

// ---------------------------------------------------------------------------------------------------------------
// Message builders

export function initializeRequest(version: string, id: string | number = 0, capabilities: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0' as const,
    id,
    method: 'initialize',
    params: { protocolVersion: version, capabilities, clientInfo: { name: 'http-spec', version: '1.0.0' } },
  };
}

/** Headers of a well-behaved client of `version` (2025-03-26 clients send no MCP-Protocol-Version header). */
export function clientHeaders(version: string, sessionId?: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
  if (version !== '2025-03-26') headers['MCP-Protocol-Version'] = version;
  if (sessionId !== undefined) headers['Mcp-Session-Id'] = sessionId;
  return headers;
}

// ---------------------------------------------------------------------------------------------------------------
// A test server with tools that let tests observe timing, cancellation and routing

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** What the fixture tools report back to the test. */
export class Probe {
  /** Contexts of `block` calls, by request id, as they start. */
  readonly started = new Map<string | number, RequestContext>();
  /** Abort reasons seen by `block` handlers, by request id. */
  readonly aborted = new Map<string | number, unknown>();
  /** Handlers of `block` that returned after their signal fired (their result must never be sent). */
  readonly returnedAfterAbort = new Set<string | number>();
  private waiters: Array<() => void> = [];

  notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves when `check` holds (re-checked whenever a fixture tool reports something). */
  async until(check: () => boolean, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('Probe.until: timed out');
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), sleep(20)]);
    }
  }
}

export function buildServer(probe = new Probe()): { server: McpServer; probe: Probe } {
  const server = new McpServer({ name: 'http-spec', version: '1.0.0' });
  server.tool('echo', { description: 'Echo text', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool('wait', { description: 'Answer after ms', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await sleep(ms);
    return { content: [{ type: 'text', text: `waited ${ms}` }] };
  });
  server.tool('progress', { description: 'Report progress, then answer', inputSchema: { steps: z.number() } }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      ctx.progress(i, steps, `step ${i}`);
      await sleep(5);
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool('block', { description: 'Run until cancelled' }, async (_args, ctx) => {
    probe.started.set(ctx.requestId, ctx);
    probe.notify();
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    probe.aborted.set(ctx.requestId, ctx.signal.reason);
    probe.returnedAfterAbort.add(ctx.requestId);
    probe.notify();
    return { content: [{ type: 'text', text: 'should never be sent' }] };
  });
  server.tool('ask', { description: 'Elicit a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)} (${answer.action})` }] };
  });
  return { server, probe };
}

// ---------------------------------------------------------------------------------------------------------------
// Serving and driving

export interface Harness extends Served {
  probe: Probe;
  server: McpServer;
  /** `http://127.0.0.1:<port>` (supertest base). */
  origin: string;
  api(): ReturnType<typeof request>;
}

export async function startHarness(options: Partial<McpMiddlewareOptions> = {}, before?: Parameters<typeof serve>[1]): Promise<Harness> {
  const built = options.server ? { server: options.server, probe: new Probe() } : buildServer();
  const served = await serve({ ...options, server: built.server }, before);
  const origin = `http://127.0.0.1:${served.port}`;
  return Object.assign(served, { probe: built.probe, server: built.server, origin, api: () => request(origin) });
}

/** POSTs initialize (then `notifications/initialized`) as a client of `version`; returns the session id. */
export async function openSession(h: Harness, version: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const res = await h
    .api()
    .post('/mcp')
    .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' })
    .send(initializeRequest(version, 'init', capabilities));
  if (res.status !== 200) throw new Error(`initialize failed: ${res.status} ${res.text}`);
  const sessionId = res.headers['mcp-session-id'] as string;
  const initialized = await h
    .api()
    .post('/mcp')
    .set(clientHeaders(version, sessionId))
    .send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized failed: ${initialized.status}`);
  return sessionId;
}

/** POSTs one message with a client's headers and waits for the whole response. */
export function postMessage(h: Harness, version: string, sessionId: string | undefined, body: unknown) {
  return h.api().post('/mcp').set(clientHeaders(version, sessionId)).send(body as object);
}

// ---------------------------------------------------------------------------------------------------------------
// Live (streaming) responses over plain node:http, for streams that stay open

export interface LiveResponse {
  /** 0 until the status line arrives. */
  readonly status: number;
  /** Empty until the headers arrive. */
  readonly headers: IncomingHttpHeaders;
  /** Resolves when the status line and headers have arrived. */
  ready: Promise<void>;
  /** Everything received so far. */
  text(): string;
  frames(): SseFrame[];
  messages(): JsonRpcMessage[];
  /** Resolves once `check(text)` holds; rejects after `timeoutMs` or when the response ends first. */
  waitFor(check: (text: string) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves with the first message matching `match`. */
  waitForMessage(match: (message: JsonRpcMessage) => boolean, timeoutMs?: number): Promise<JsonRpcMessage>;
  /** Resolves when the response has ended (or its connection closed). */
  ended: Promise<void>;
  readonly isEnded: boolean;
  /** Drops the connection (the client goes away). */
  close(): void;
}

/**
 * The live responses a test opens: push each one; they are closed (the client goes away) in an `afterEach` of the
 * calling scope, so that an open SSE response never holds its server open. Call it at the top of a `describe`.
 */
export function closeLiveAfterEach(): LiveResponse[] {
  const open: LiveResponse[] = [];
  afterEach(() => {
    for (const live of open.splice(0)) live.close();
  });
  return open;
}

export interface LiveRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  agent?: http.Agent;
  /** Resolve only once the response headers arrive (default), or as soon as the request is sent. */
  waitForHeaders?: boolean;
  /** Fail when the status line and headers take longer than this (ms). Defaults to 5000. */
  headersTimeoutMs?: number;
}

/**
 * Sends a request over plain node:http and hands back its response as it streams in. By default it resolves
 * when the response headers arrive; with `waitForHeaders: false`, as soon as the request is written (a POST's
 * SSE headers go out with its first event).
 */
export async function openLive(h: Pick<Harness, 'port'>, options: LiveRequestOptions = {}): Promise<LiveResponse> {
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headersTimeoutMs = options.headersTimeoutMs ?? 5000;
  let text = '';
  let status = 0;
  let headers: IncomingHttpHeaders = {};
  let isEnded = false;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  let markEnded!: () => void;
  const ended = new Promise<void>((done) => {
    markEnded = () => {
      if (isEnded) return;
      isEnded = true;
      done();
      changed();
    };
  });
  let req!: http.ClientRequest;
  let res: http.IncomingMessage | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    const headersTimer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no response headers within ${headersTimeoutMs} ms`));
    }, headersTimeoutMs);
    req = http.request(
      {
        host: '127.0.0.1',
        port: h.port,
        path: '/mcp',
        method: options.method ?? 'GET',
        headers: payload === undefined ? options.headers : { ...options.headers, 'Content-Length': String(Buffer.byteLength(payload)) },
        agent: options.agent ?? false,
      },
      (response) => {
        clearTimeout(headersTimer);
        res = response;
        status = response.statusCode ?? 0;
        headers = response.headers;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          changed();
        });
        response.on('end', markEnded);
        response.on('close', markEnded);
        response.on('error', markEnded);
        resolve();
      },
    );
    req.on('error', (error) => {
      clearTimeout(headersTimer);
      markEnded();
      reject(error);
    });
    if (payload !== undefined) req.write(payload);
    req.end();
  });
  ready.catch(() => undefined); // observed by callers that await it
  const waitFor = (check: (text: string) => boolean, timeoutMs = 3000) =>
    new Promise<void>((done, fail) => {
      if (check(text)) return done();
      const timer = setTimeout(() => {
        listeners.delete(listener);
        fail(new Error(`waitFor timed out after ${timeoutMs} ms; received so far:\n${text}`));
      }, timeoutMs);
      const listener = () => {
        if (check(text)) {
          clearTimeout(timer);
          listeners.delete(listener);
          done();
        } else if (isEnded) {
          clearTimeout(timer);
          listeners.delete(listener);
          fail(new Error(`the response ended before the condition held; received:\n${text}`));
        }
      };
      listeners.add(listener);
    });
  const live: LiveResponse = {
    get status() {
      return status;
    },
    get headers() {
      return headers;
    },
    ready,
    text: () => text,
    frames: () => parseSseFrames(text),
    messages: () => messagesOf(parseSseFrames(text)),
    waitFor,
    async waitForMessage(match, timeoutMs) {
      let found: JsonRpcMessage | undefined;
      await waitFor((current) => (found = messagesOf(parseSseFrames(current)).find(match)) !== undefined, timeoutMs);
      return found!;
    },
    ended,
    get isEnded() {
      return isEnded;
    },
    close: () => {
      res?.destroy();
      req.destroy();
    },
  };
  if (options.waitForHeaders ?? true) await ready;
  return live;
}

/** Opens the session's standalone GET stream and waits until it is registered (headers received). */
export function openGet(h: Pick<Harness, 'port'>, version: string, sessionId: string, extra: Record<string, string> = {}): Promise<LiveResponse> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId, ...extra };
  if (version !== '2025-03-26') headers['MCP-Protocol-Version'] = version;
  return openLive(h, { method: 'GET', headers });
}

/**
 * POSTs a request and returns its response while it streams. Does not wait for the headers: they go out with
 * the stream's first event (a priming event for 2025-11-25 clients, else the first message or keep-alive).
 */
export function openPost(h: Pick<Harness, 'port'>, version: string, sessionId: string, body: unknown, agent?: http.Agent): Promise<LiveResponse> {
  return openLive(h, { method: 'POST', headers: clientHeaders(version, sessionId), body, agent, waitForHeaders: false });
}

/**
 * Writes raw bytes to the server and returns the raw HTTP response text (for requests node:http refuses to
 * send, e.g. without Host or with non-ASCII header bytes). Uses `Connection: close` semantics (HTTP/1.0 or
 * an explicit header) so the server ends the socket.
 */
export function rawHttp(port: number, raw: Buffer | string, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw request timed out; got: ${Buffer.concat(chunks).toString('latin1')}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (chunks.length) resolve(Buffer.concat(chunks).toString('latin1'));
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(raw);
  });
}

/** Status code and JSON body (when there is one) of a raw HTTP response. */
export function parseRawResponse(raw: string): { status: number; headers: string; body: string; json: unknown } {
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
  const split = raw.indexOf('\r\n\r\n');
  const headers = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split + 4);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, body, json };
}
