/**
 * The fuzz suite's servers and wire client: one real HTTP server per configuration, two principals (alice and
 * bob) with real sessions and real streams, and a raw keep-alive HTTP client that sends exactly the header lines
 * it is given (duplicates included) and reads a response whole, or for a long-lived stream a short window of it.
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  InMemoryEventStore,
  InMemorySessionStore,
  LocalSessionManager,
  McpError,
  McpServer,
  mcpMiddleware,
  NeverSessionManager,
  type McpMiddlewareOptions,
  type McpRequestHandler,
} from '../../lib/index.js';

import { ACCEPT_BOTH, MODERN, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from '../helpers/modern.js';

export { ACCEPT_BOTH, MODERN, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION };

/** The header the test auth middleware reads the principal from (absent: an anonymous request). */
export const PRINCIPAL_HEADER = 'X-Fuzz-Principal';

/** Only bob's data carries this; no response to anyone else may ever contain it. */
export const BOB_MARKER = 'BOB~PRIVATE~7f3a9c1e~MARKER';

/** `numRuns` of a property: its share of the default total, scaled by `FUZZ_RUNS` (the total) when set. */
export function runs(defaultRuns: number): number {
  const total = Number(process.env.FUZZ_RUNS ?? DEFAULT_TOTAL_RUNS);
  if (!(total > 0)) throw new Error(`FUZZ_RUNS must be a positive number of runs (got ${process.env.FUZZ_RUNS})`);
  return Math.max(1, Math.round((defaultRuns * total) / DEFAULT_TOTAL_RUNS));
}

/** Runs of every property of the suite together, by default; `FUZZ_RUNS` replaces this number. */
export const DEFAULT_TOTAL_RUNS = 8825;

/** Gives each test time in proportion to its runs (20 s at the default total, more with a larger FUZZ_RUNS). */
export function scaleTestTimeout(): void {
  jest.setTimeout(Math.max(20_000, Math.ceil((20_000 * runs(DEFAULT_TOTAL_RUNS)) / DEFAULT_TOTAL_RUNS)));
}

/** The fixed seed of every property (`FUZZ_SEED` overrides it to explore). */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261201);

// ---------------------------------------------------------------------------------------------------------------
// The server under fuzz

export const TOOL_NAMES = ['echo', 'region_tool', 'ask', 'two_step', 'progress', 'fail', 'whoami'] as const;
export const PROMPT_NAMES = ['greeting'] as const;
export const STATIC_RESOURCE = 'fixture://static';
export const RESOURCE_TEMPLATE = 'fixture://items/{id}';

export function buildFuzzServer(): McpServer {
  const server = new McpServer({ name: 'fuzz', version: '1.0.0' }, { onError: () => undefined });
  server.tool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool(
    'region_tool',
    { description: 'A header-mirrored argument', inputSchema: { region: z.string().optional(), count: z.number().int().optional() }, propertyAnnotations: { region: { 'x-mcp-header': 'Region' }, count: { 'x-mcp-header': 'Count' } } },
    ({ region, count }) => ({ content: [{ type: 'text', text: `region=${region} count=${count}` }] }),
  );
  server.tool('ask', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'name' });
    return { content: [{ type: 'text', text: `hello ${JSON.stringify(answer.content?.name ?? null)}` }] };
  });
  server.tool('two_step', { description: 'Asks two questions' }, async (_args, ctx) => {
    const first = await ctx.elicit({ message: 'Secret?', requestedSchema: { type: 'object', properties: { secret: { type: 'string' } } } }, { key: 'first' });
    const second = await ctx.elicit({ message: 'Colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } }, { key: 'second' });
    return { content: [{ type: 'text', text: `${JSON.stringify(first.content ?? null)} ${JSON.stringify(second.content ?? null)}` }] };
  });
  server.tool('progress', { description: 'Progress, a log line, then an answer' }, async (_args, ctx) => {
    ctx.progress(1, 2, 'half');
    ctx.log('info', 'progressing', 'fuzz');
    await new Promise<void>((resolve) => setImmediate(resolve));
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool('fail', { description: 'Fails', inputSchema: { how: z.string().optional() } }, ({ how }) => {
    if (how === 'plain') throw new Error('plain failure');
    throw new McpError(-32602, 'fail always fails', { how: how ?? null });
  });
  server.tool('whoami', { description: 'Names the caller' }, (_args, ctx) => ({
    content: [{ type: 'text', text: `${String(ctx.authInfo?.clientId ?? 'anonymous')} ${ctx.sessionId ?? 'no-session'} ${ctx.protocolVersion}` }],
  }));
  server.prompt(
    'greeting',
    { description: 'Greets', argsSchema: { name: z.string() }, complete: { name: (value) => ['alice', 'albert', 'bob'].filter((word) => word.startsWith(value)) } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }] }),
  );
  server.resource('static', STATIC_RESOURCE, { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'static text' }] }));
  server.resourceTemplate(
    'items',
    RESOURCE_TEMPLATE,
    { mimeType: 'text/plain', complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) } },
    (uri, variables) => ({ contents: [{ uri: uri.href, text: `item ${variables.id}` }] }),
  );
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// Configurations

export type ConfigName = 'local' | 'never' | 'stores' | 'never-events' | 'local-json';

export const CONFIG_NAMES: readonly ConfigName[] = ['local', 'never', 'stores', 'never-events', 'local-json'];

/** Generous retention, so bob's streams stay resumable for the whole run (the fuzz must find them, not miss them). */
const RETENTION = { completedStreamTtl: 30 * 60_000 };

function optionsFor(name: ConfigName, errors: unknown[]): Omit<McpMiddlewareOptions, 'server'> {
  const onError = (error: unknown) => errors.push(error);
  switch (name) {
    case 'local':
      return { sessionManager: new LocalSessionManager({ ...RETENTION, onError }), onError };
    case 'never':
      return { legacySessions: false, onError };
    case 'stores':
      return {
        sessionManager: new LocalSessionManager({ ...RETENTION, onError, eventStore: new InMemoryEventStore({ ttlMs: 30 * 60_000 }), sessionStore: new InMemorySessionStore() }),
        onError,
      };
    case 'never-events':
      return { legacySessions: false, sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore({ ttlMs: 30 * 60_000 }), onError }), onError };
    case 'local-json':
      // One JSON body per answer where the transport allows it: JSON (and JSON batch) replies in sessions, json mode for 2026-07-28.
      return { sessionManager: new LocalSessionManager({ ...RETENTION, onError }), onError, enableJsonResponse: true, responseMode: 'json' };
  }
}

/** A server of one configuration, listening on 127.0.0.1, with the principals' sessions and bob's private data. */
export interface FuzzTarget {
  name: ConfigName;
  port: number;
  /** Sessions exist (LocalSessionManager). */
  stateful: boolean;
  /** An EventStore persists streams. */
  persisted: boolean;
  client: WireClient;
  /** alice's sessions by protocol version (stateful configurations only). */
  alice: Map<string, string>;
  /** bob's session (2025-11-25) and every event id bob's streams carried (session streams and stateless persisted ones). */
  bob: { sessionId?: string; eventIds: string[]; requestState?: string };
  /** Every event id alice's own streams carried, to build plausible resume ids from. */
  aliceEventIds: string[];
  /** Errors the middleware reported to onError (handler failures, unexpected errors). */
  errors: unknown[];
  /** alice's session of `version`; `renew` opens a new one (after a fuzzed DELETE ended it). */
  aliceSession(version: string, renew?: boolean): Promise<string>;
  close(): Promise<void>;
}

export const SESSION_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

export async function startTarget(name: ConfigName): Promise<FuzzTarget> {
  const errors: unknown[] = [];
  const app = express();
  app.use((req, _res, next) => {
    const principal = req.headers[PRINCIPAL_HEADER.toLowerCase()];
    if (typeof principal === 'string') (req as express.Request & { auth?: unknown }).auth = { clientId: principal, token: 'x', scopes: [] };
    next();
  });
  const middleware: McpRequestHandler = mcpMiddleware({ server: buildFuzzServer(), ...optionsFor(name, errors) });
  app.use(middleware);
  const server = await new Promise<http.Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const port = (server.address() as AddressInfo).port;
  const client = new WireClient(port);
  const stateful = name === 'local' || name === 'stores' || name === 'local-json';
  const target: FuzzTarget = {
    name,
    port,
    stateful,
    persisted: name === 'stores' || name === 'never-events',
    client,
    alice: new Map(),
    bob: { eventIds: [] },
    aliceEventIds: [],
    errors,
    async aliceSession(version, renew = false) {
      const known = target.alice.get(version);
      if (known !== undefined && !renew) return known;
      const created = await initializeSession(client, 'alice', version);
      target.alice.set(version, created.sessionId);
      target.aliceEventIds.push(...created.eventIds);
      return created.sessionId;
    },
    async close() {
      client.close();
      await middleware.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  try {
    await seedPrivateData(target);
  } catch (error) {
    await target.close();
    throw error;
  }
  return target;
}

/** Headers of a well-behaved session-era client, as a flat list. */
export function sessionHeaders(principal: string | undefined, version: string, sessionId?: string): string[] {
  const headers = ['Host', '127.0.0.1', 'Accept', ACCEPT_BOTH, 'Content-Type', 'application/json'];
  if (principal !== undefined) headers.push(PRINCIPAL_HEADER, principal);
  if (version !== '2025-03-26') headers.push('MCP-Protocol-Version', version);
  if (sessionId !== undefined) headers.push('Mcp-Session-Id', sessionId);
  return headers;
}

/** A valid 2026-07-28 envelope. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return { [META_PROTOCOL_VERSION]: MODERN, [META_CLIENT_CAPABILITIES]: capabilities, [META_CLIENT_INFO]: { name: 'fuzz', version: '1.0.0' } };
}

/** Headers of a well-behaved 2026-07-28 request for `method` (and `name`, mirrored in Mcp-Name). */
export function modernHeaders(principal: string | undefined, method: string, name?: string): string[] {
  const headers = ['Host', '127.0.0.1', 'Accept', ACCEPT_BOTH, 'Content-Type', 'application/json', 'MCP-Protocol-Version', MODERN, 'Mcp-Method', method];
  if (principal !== undefined) headers.push(PRINCIPAL_HEADER, principal);
  if (name !== undefined) headers.push('Mcp-Name', name);
  return headers;
}

async function initializeSession(client: WireClient, principal: string, version: string): Promise<{ sessionId: string; eventIds: string[] }> {
  const res = await client.send({
    method: 'POST',
    headers: sessionHeaders(principal, version),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: principal, version: '1.0.0' } } }),
  });
  const sessionId = res.headers['mcp-session-id'];
  if (res.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize as ${principal} failed: ${res.status} ${res.text}`);
  const initialized = await client.send({ method: 'POST', headers: sessionHeaders(principal, version, sessionId), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  if (initialized.status !== 202) throw new Error(`notifications/initialized as ${principal} failed: ${initialized.status}`);
  return { sessionId, eventIds: res.eventIds };
}

/**
 * bob's private data: a session with a stream that echoed the marker (session configurations), a persisted
 * stateless stream that echoed it (configurations with an EventStore), and a requestState that carries it as an
 * earlier answer (every configuration). alice's sessions are opened too.
 */
async function seedPrivateData(target: FuzzTarget): Promise<void> {
  const { client } = target;
  const echo = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: BOB_MARKER } } });
  if (target.stateful) {
    const bob = await initializeSession(client, 'bob', '2025-11-25');
    target.bob.sessionId = bob.sessionId;
    target.bob.eventIds.push(...bob.eventIds);
    const call = await client.send({ method: 'POST', headers: sessionHeaders('bob', '2025-11-25', bob.sessionId), body: JSON.stringify(echo(1)) });
    if (!call.text.includes(BOB_MARKER) || (call.sse && call.eventIds.length === 0)) throw new Error(`bob's echo did not carry the marker: ${call.status} ${call.text}`);
    target.bob.eventIds.push(...call.eventIds);
    for (const version of SESSION_VERSIONS) await target.aliceSession(version);
  } else {
    // A stateless 2025-11-25 call: persisted (resumable) when there is an EventStore.
    const call = await client.send({ method: 'POST', headers: sessionHeaders('bob', '2025-11-25'), body: JSON.stringify(echo(1)) });
    if (!call.text.includes(BOB_MARKER)) throw new Error(`bob's stateless echo failed: ${call.status} ${call.text}`);
    target.bob.eventIds.push(...call.eventIds);
    if (target.persisted && call.eventIds.length === 0) throw new Error(`bob's persisted stateless reply carried no event ids: ${call.text}`);
    const own = await client.send({ method: 'POST', headers: sessionHeaders('alice', '2025-11-25'), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'alice' } } }) });
    target.aliceEventIds.push(...own.eventIds);
  }
  // 2026-07-28: bob answers the first question of two_step with the marker; the second round's requestState seals it.
  const params = { name: 'two_step', arguments: {}, inputResponses: { first: { action: 'accept', content: { secret: BOB_MARKER } } }, _meta: envelope({ elicitation: {} }) };
  const round = await client.send({ method: 'POST', headers: modernHeaders('bob', 'tools/call', 'two_step'), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params }) });
  const final = (round.sse ? round.messages.find((message) => (message as { id?: unknown }).id === 3) : round.json) as { result?: { requestState?: unknown } } | undefined;
  const requestState = final?.result?.requestState;
  if (round.status !== 200 || typeof requestState !== 'string') throw new Error(`bob's two_step did not end in input_required: ${round.status} ${round.text}`);
  target.bob.requestState = requestState;
}

// ---------------------------------------------------------------------------------------------------------------
// The wire client

export interface WireRequest {
  method: string;
  /** Header lines as a flat [name, value, name, value…] list, sent as given (Content-Length is added for a body). */
  headers: string[];
  body?: string | Buffer;
  path?: string;
  /**
   * How to read an SSE response: `'whole'` waits for its end (a request's stream ends with its response);
   * `'window'` stops after `windowMs` without data (a GET stream or `subscriptions/listen` stays open).
   */
  read?: 'whole' | 'window';
}

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body of an application/json response. */
  json: unknown;
  sse: boolean;
  /** The JSON-RPC messages of an SSE body (data lines that are not empty), parsed; an unparsable one is kept as a string. */
  messages: unknown[];
  /** `id:` fields of the SSE body, in order. */
  eventIds: string[];
  /** The response ended by itself (false: the client cut a stream that stayed open). */
  ended: boolean;
}

/** Fails a request with no complete response after this long: a hang is a finding, reported with its input. */
const WHOLE_TIMEOUT_MS = 8000;
/** Idle time after which a stream that stays open (GET, listen) has said what it had to say. */
const WINDOW_IDLE_MS = 25;

export class WireClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  constructor(readonly port: number) {}

  send(request: WireRequest): Promise<WireResponse> {
    const headers = [...request.headers];
    if (request.body !== undefined) headers.push('Content-Length', String(Buffer.byteLength(request.body)));
    return new Promise((resolve, reject) => {
      let settled = false;
      let idle: NodeJS.Timeout | undefined;
      const chunks: Buffer[] = [];
      const req = http.request({ host: '127.0.0.1', port: this.port, path: request.path ?? '/mcp', method: request.method, headers, agent: this.agent, setHost: false }, (res) => {
        const finish = (ended: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(hard);
          clearTimeout(idle);
          if (!ended) res.destroy();
          resolve(toResponse(res.statusCode ?? 0, res.headers, Buffer.concat(chunks).toString('utf8'), ended));
        };
        const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        const windowed = sse && request.read === 'window';
        const arm = () => {
          if (!windowed) return;
          clearTimeout(idle);
          idle = setTimeout(() => finish(false), WINDOW_IDLE_MS);
        };
        arm();
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          arm();
        });
        res.on('end', () => finish(true));
        res.on('error', (error) => {
          if (!settled) {
            settled = true;
            clearTimeout(hard);
            clearTimeout(idle);
            reject(error);
          }
        });
      });
      const hard = setTimeout(() => {
        if (settled) return;
        settled = true;
        req.destroy();
        reject(new Error(`no complete response within ${WHOLE_TIMEOUT_MS} ms (received so far: ${Buffer.concat(chunks).toString('utf8').slice(0, 500)})`));
      }, WHOLE_TIMEOUT_MS);
      req.on('error', (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(hard);
        clearTimeout(idle);
        reject(error);
      });
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function toResponse(status: number, headers: http.IncomingHttpHeaders, text: string, ended: boolean): WireResponse {
  const sse = String(headers['content-type'] ?? '').startsWith('text/event-stream');
  let json: unknown;
  const messages: unknown[] = [];
  const eventIds: string[] = [];
  if (sse) {
    for (const event of parseSseEvents(text)) {
      if (event.id !== undefined) eventIds.push(event.id);
      if (event.data === undefined || event.data === '') continue;
      try {
        messages.push(JSON.parse(event.data));
      } catch {
        messages.push(event.data);
      }
    }
  } else if (text !== '' && String(headers['content-type'] ?? '').startsWith('application/json')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status, headers, text, json, sse, messages, eventIds, ended };
}

/** One SSE event: its fields, and any field name the SSE format does not define (an injected line). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  unknownFields: string[];
}

/** Splits an SSE body into events (WHATWG rules: one leading space after the colon is dropped; comments skipped). */
export function parseSseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let current: SseEvent = { unknownFields: [] };
  let touched = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (touched) events.push(current);
      current = { unknownFields: [] };
      touched = false;
      continue;
    }
    if (line.startsWith(':')) continue;
    touched = true;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') current.data = current.data === undefined ? value : `${current.data}\n${value}`;
    else if (field === 'id' || field === 'event' || field === 'retry') current[field] = value;
    else current.unknownFields.push(field);
  }
  return events;
}

// ---------------------------------------------------------------------------------------------------------------
// Jest lifecycle

export interface Targets {
  get(name: ConfigName): FuzzTarget;
}

/**
 * Starts one target per configuration before the file's tests and closes them after.
 *
 * Unhandled rejections: jest-circus listens for them on the real process and fails the test that is running
 * when one occurs (a `process.on('unhandledRejection')` inside a test file would not see them: jest gives each
 * file its own copy of `process`). So a rejection the server leaves unhandled fails the property that caused it.
 */
export function useTargets(names: readonly ConfigName[] = CONFIG_NAMES): Targets {
  scaleTestTimeout();
  const started = new Map<ConfigName, FuzzTarget>();
  beforeAll(async () => {
    for (const name of names) started.set(name, await startTarget(name));
  });
  afterAll(async () => {
    for (const target of started.values()) await target.close();
  });
  return {
    get(name) {
      const target = started.get(name);
      if (!target) throw new Error(`no target ${name}: did beforeAll fail?`);
      return target;
    },
  };
}

/**
 * The process survived: the target still answers an ordinary tools/call correctly, in a session (stateful
 * configurations) and as a 2026-07-28 request.
 */
export async function expectStillServing(target: FuzzTarget): Promise<void> {
  const call = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
  const sessionId = target.stateful ? await target.aliceSession('2025-11-25', true) : undefined;
  const legacy = await target.client.send({ method: 'POST', headers: sessionHeaders('alice', '2025-11-25', sessionId), body: call(41, 'still here') });
  expect(legacy.status).toBe(200);
  expect(legacy.sse ? legacy.messages : [legacy.json]).toContainEqual({ jsonrpc: '2.0', id: 41, result: { content: [{ type: 'text', text: 'still here' }] } });
  const modern = await target.client.send({
    method: 'POST',
    headers: modernHeaders('alice', 'tools/call', 'echo'),
    body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'echo', arguments: { text: 'modern' }, _meta: envelope() } }),
  });
  expect(modern.status).toBe(200);
  const final = modern.sse ? modern.messages.find((message) => (message as { id?: unknown }).id === 42) : modern.json;
  expect(final).toEqual({ jsonrpc: '2.0', id: 42, result: { content: [{ type: 'text', text: 'modern' }], resultType: 'complete' } });
}
