#!/usr/bin/env node
// One benchmark server, in its own process: `node bench/server.js <target>`.
// Started by bench/run.js (and the scenario scripts) with fork(); listens on 127.0.0.1 on a free port (port 0) and
// reports { type: 'ready', port } over IPC. IPC messages: { type: 'usage' } (CPU and heap), { type: 'memory' }
// (after a full GC; needs --expose-gc), { type: 'notify' } (tools list_changed to every listener) and
// { type: 'stop' } (or the parent going away), which closes it with process.exit(0) so that `--cpu-prof` gets to
// write its profile. Redis-backed servers write under a key prefix of their own and delete their keys on stop.
'use strict';

const http = require('node:http');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const express = require('express');
const { z } = require('zod');
const { TARGETS, SUM_RESULT, PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION } = require('./targets.js');
const { connectRedis, uniquePrefix, deleteKeys } = require('./redis-helper.js');

const root = path.join(__dirname, '..');

/**
 * The raw node:http floor: reads the body, `JSON.parse`, answers the JSON-RPC result of a tools/call of "sum" with
 * the request's id (`writeHead`/`end`). `sse`: answers as the middleware's SSE stream does instead (priming event,
 * the response as an event, chunked). `spinMicros`: first spends that long in a busy loop (a handler's own work).
 */
function floorHandler({ sse = false, spinMicros = 0 } = {}) {
  const result = JSON.stringify(SUM_RESULT);
  const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' };
  let stream = 0;
  return (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let message;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
        return;
      }
      if (spinMicros > 0) {
        const until = process.hrtime.bigint() + BigInt(spinMicros * 1000);
        while (process.hrtime.bigint() < until);
      }
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id ?? null)},"result":${result}}`;
      if (!sse) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
        return;
      }
      const key = `floor/${++stream}`;
      res.writeHead(200, SSE_HEADERS);
      res.write(`id: ${key}/0\nretry: 1000\ndata: \n\n`);
      res.write(`event: message\nid: ${key}/1\ndata: ${body}\n\n`);
      res.end();
    });
  };
}

/**
 * The least a tools/call takes, written by hand for this one request shape, with no package: what the spec asks a
 * server to check of it (Accept and Content-Type; the JSON-RPC envelope; for 2026-07-28 the protocol version in the
 * header and in `_meta`, the client's info and capabilities in `_meta`, Mcp-Method and Mcp-Name matching the body;
 * in a session the Mcp-Session-Id looked up and MCP-Protocol-Version matched), the tool found by name, its
 * arguments checked with the same zod schema, the same async handler, and the response serialised (for
 * 2026-07-28 with the `resultType` every result carries; in a session as one SSE event, with its length known).
 * No limits, cancellation, progress, server-to-client requests, resumability, keep-alive, auth or observability,
 * and no other method than initialize: a lower bound for what any spec-complete server spends on this call, not a
 * server to use. `session`: 2025-11-25 sessions (initialize gives an Mcp-Session-Id); otherwise 2026-07-28
 * stateless requests. `redis` (sessions only): `{ client, prefix }`, and every response is stored in Redis before
 * it is sent, as one event a client could resume after (see leastRedisStore).
 *
 * `standard`: adds the least of what this project's standards ask of every call beyond the spec's checks (see
 * leastStandard): the `Host`/`Origin` guard of a server secure by default, the body limit in bytes, the call
 * cancelled when its client goes away (and in a session by `notifications/cancelled`, so each call is recorded
 * while it runs), and in a session a resumable answer: a priming event, event ids, and the stream's events kept
 * in memory for a resume within a bound (streams per session, bytes per session). Still no progress, requests to
 * the client, keep-alive, auth hooks or observability.
 */
function leastMcpHandler({ session, redis, standard = false }) {
  const store = redis ? leastRedisStore(redis) : undefined;
  const tools = new Map([['sum', { input: z.object({ a: z.number(), b: z.number() }), handler: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }) }]]);
  /** Session id -> the protocol version it negotiated. */
  const sessions = new Map();
  /** A whole SSE answer in one body with its length (a literal: `{ ...SSE_HEADERS, 'Content-Length' }` took 1.3 µs more per call in process). */
  const sendEvents = (res, events) =>
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', 'Content-Length': Buffer.byteLength(events) }).end(events);
  const answer = (res, status, message, headers) => {
    const text = JSON.stringify(message);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers }).end(text);
  };
  const fail = (res, status, code, message, id = null) => answer(res, status, { jsonrpc: '2.0', id, error: { code, message } });
  const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const kept = standard ? leastStandard() : undefined;
  return (req, res) => {
    if (kept && !kept.guardAllows(req)) return fail(res, 403, -32000, 'Forbidden: Host or Origin not allowed');
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return fail(res, 406, -32000, 'Not Acceptable');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(res, 415, -32000, 'Unsupported Media Type');
    if (kept && Number(req.headers['content-length'] ?? 0) > kept.maxBodyBytes) return fail(res, 413, -32000, 'Payload Too Large');
    const chunks = [];
    let bodyBytes = 0;
    req.on('data', (chunk) => {
      if (bodyBytes < 0) return; // over the limit, answered
      if (kept && (bodyBytes += chunk.length) > kept.maxBodyBytes) {
        bodyBytes = -1;
        chunks.length = 0;
        req.removeAllListeners('end');
        return fail(res, 413, -32000, 'Payload Too Large');
      }
      chunks.push(chunk);
    });
    req.on('end', async () => {
      let m;
      try {
        m = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return fail(res, 400, -32700, 'Parse error');
      }
      if (!isObject(m) || m.jsonrpc !== '2.0' || typeof m.method !== 'string' || (m.params !== undefined && !isObject(m.params))) return fail(res, 400, -32600, 'Invalid Request');
      const isRequest = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id));
      if (m.id !== undefined && !isRequest) return fail(res, 400, -32600, 'Invalid Request');
      const version = req.headers['mcp-protocol-version'];
      /** With `standard`, what the session keeps of its running calls and streams (looked up once per request). */
      let keptSession;
      if (session) {
        if (m.method === 'initialize') {
          if (!isRequest || !isObject(m.params) || typeof m.params.protocolVersion !== 'string' || !isObject(m.params.capabilities) || !isObject(m.params.clientInfo)) return fail(res, 400, -32602, 'Invalid params', m.id);
          const sessionId = randomUUID();
          sessions.set(sessionId, PROTOCOL_VERSION);
          kept?.openSession(sessionId);
          return answer(res, 200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'least', version: '1.0.0' } } }, { 'Mcp-Session-Id': sessionId });
        }
        const sessionId = req.headers['mcp-session-id'];
        if (sessionId === undefined) return fail(res, 400, -32000, 'Mcp-Session-Id required', m.id);
        const negotiated = sessions.get(sessionId);
        if (negotiated === undefined) return fail(res, 404, -32001, 'Session not found', m.id);
        if (version !== undefined && version !== negotiated) return fail(res, 400, -32000, 'Bad MCP-Protocol-Version', m.id);
        keptSession = kept?.session(sessionId);
      } else {
        const meta = m.params?._meta;
        if (version !== MODERN_PROTOCOL_VERSION || !isObject(meta) || meta['io.modelcontextprotocol/protocolVersion'] !== version) return fail(res, 400, -32600, 'Invalid Request: protocol version', m.id);
        if (!isObject(meta['io.modelcontextprotocol/clientInfo']) || !isObject(meta['io.modelcontextprotocol/clientCapabilities'])) return fail(res, 400, -32600, 'Invalid Request: _meta', m.id);
        if (req.headers['mcp-method'] !== m.method || (m.method === 'tools/call' && req.headers['mcp-name'] !== m.params?.name)) return fail(res, 400, -32001, 'Header mismatch', m.id);
      }
      if (!isRequest) {
        if (keptSession && m.method === 'notifications/cancelled') kept.cancel(keptSession, m.params?.requestId);
        res.writeHead(202).end();
        return;
      }
      if (m.method !== 'tools/call') return fail(res, 400, -32601, 'Method not found', m.id);
      const tool = tools.get(m.params?.name);
      if (!tool) return fail(res, 400, -32602, 'Unknown tool', m.id);
      const args = tool.input.safeParse(m.params.arguments ?? {});
      const refused = keptSession && kept.refusal(keptSession, m.id);
      if (refused) return fail(res, 400, -32600, refused, m.id);
      const call = kept?.start(res, keptSession, m.id);
      let result;
      try {
        result = args.success ? await tool.handler(args.data, call) : { content: [{ type: 'text', text: 'Invalid arguments' }], isError: true };
      } catch (error) {
        result = { content: [{ type: 'text', text: String(error?.message) }], isError: true };
      }
      if (call && kept.finish(call)) return; // cancelled: no answer
      if (!session) {
        result.resultType = 'complete'; // every 2026-07-28 result carries it (the handler's object is its own)
        return answer(res, 200, { jsonrpc: '2.0', id: m.id, result });
      }
      const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
      if (keptSession) return sendEvents(res, kept.resumableEvents(keptSession, text));
      if (!store) return sendEvents(res, `event: message\ndata: ${text}\n\n`);
      let eventId;
      try {
        eventId = await store(req.headers['mcp-session-id'], text);
      } catch {
        return fail(res, 500, -32603, 'Internal error', m.id);
      }
      sendEvents(res, `event: message\nid: ${eventId}\ndata: ${text}\n\n`);
    });
  };
}

/**
 * What leastMcpHandler's `standard` adds, at its least: the Host/Origin guard (loopback names, any port), the body
 * limit (4 MiB, the middleware's default), a record per running call (its session's calls by JSON-RPC id, for
 * `notifications/cancelled`, a request id already running refused, at most 100 running; cancelled too when the
 * response closes before it is answered; the signal made only when a handler asks for it), and a session's streams kept for a resume: a priming event with an id and a retry,
 * the response as an event with the next id, and both kept with their stream, at most 64 streams and 4 MiB per
 * session and 32 MiB in all (the oldest streams of the session go first; the middleware's defaults). Not written,
 * as they are not on a call's path: the GET that would replay them, and the expiry of kept streams.
 */
function leastStandard() {
  const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
  const MAX_STREAMS = 64;
  const MAX_SESSION_BYTES = 4 * 1024 * 1024;
  const MAX_RUNNING = 100;
  const MAX_BYTES = 32 * 1024 * 1024;
  /** The bytes kept by every session together. */
  let keptBytes = 0;
  /** `Host` (or an Origin's host) without its port, if it is a loopback name. */
  const loopback = (host) => {
    const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
    return LOOPBACK.has(end > 0 ? host.slice(0, end) : host);
  };
  const originAllowed = (origin) => {
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && loopback(url.host);
    } catch {
      return false;
    }
  };
  /** Session id -> { streams: Map<stream id, { events, bytes }>, bytes, calls: the running calls, next }. */
  const sessions = new Map();
  class Call {
    constructor(res, state, id) {
      this.res = res;
      this.state = state;
      this.id = id;
      this.cancelled = false;
      this.controller = undefined;
      this.onClose = () => this.cancel();
    }
    get signal() {
      return (this.controller ??= new AbortController()).signal;
    }
    cancel() {
      if (this.res.writableEnded) return;
      this.cancelled = true;
      this.controller?.abort();
    }
  }
  return {
    maxBodyBytes: 4 * 1024 * 1024,
    guardAllows(req) {
      const host = req.headers.host;
      if (host === undefined || !loopback(host)) return false;
      const origin = req.headers.origin;
      return origin === undefined || originAllowed(origin);
    },
    openSession(sessionId) {
      // The running calls in an array: a Map that goes from one key to none on every call rebuilds its table.
      sessions.set(sessionId, { streams: new Map(), bytes: 0, calls: [], next: 0, prefix: sessionId.slice(0, 8) });
    },
    /** What a session keeps (see `openSession`), looked up once per request and handed to the methods below. */
    session(sessionId) {
      return sessions.get(sessionId);
    },
    /** Why a session cannot take a request now (its id in use by a running call, or 100 running), if it cannot. */
    refusal(state, id) {
      if (state.calls.length >= MAX_RUNNING) return 'Too many requests in progress';
      return state.calls.some((call) => call.id === id) ? 'Request id in use' : undefined;
    },
    /** A running call's record; `state`: its session's, or undefined for a 2026-07-28 request. */
    start(res, state, id) {
      const call = new Call(res, state, id);
      res.on('close', call.onClose);
      state?.calls.push(call);
      return call;
    },
    /** The call's record goes; true when it was cancelled (then it is not answered). */
    finish(call) {
      call.res.off('close', call.onClose);
      const calls = call.state?.calls;
      if (calls) {
        const at = calls.indexOf(call);
        if (at === calls.length - 1) calls.pop();
        else if (at >= 0) calls.splice(at, 1);
      }
      return call.cancelled;
    },
    cancel(state, requestId) {
      state.calls.find((call) => call.id === requestId)?.cancel();
    },
    /** The answer of one call as a resumable stream: its priming event and its response, both kept for a resume. */
    resumableEvents(state, text) {
      const streamId = `${state.prefix}.${++state.next}`;
      const priming = `id: ${streamId}/0\nretry: 3000\ndata: \n\n`;
      const response = `event: message\nid: ${streamId}/1\ndata: ${text}\n\n`;
      const bytes = priming.length + response.length; // its bytes: the answer here is ASCII (a server to use would count UTF-8)
      state.streams.set(streamId, { events: [priming, response], bytes });
      state.bytes += bytes;
      keptBytes += bytes;
      // Over a bound, this session's oldest streams go (a server to use would take the largest session's when only
      // the process-wide bound is passed).
      if (state.streams.size > MAX_STREAMS || state.bytes > MAX_SESSION_BYTES || keptBytes > MAX_BYTES) {
        for (const [oldest, stream] of state.streams) {
          if (state.streams.size <= MAX_STREAMS && state.bytes <= MAX_SESSION_BYTES && keptBytes <= MAX_BYTES) break;
          state.streams.delete(oldest);
          state.bytes -= stream.bytes;
          keptBytes -= stream.bytes;
        }
      }
      return priming + response;
    },
  };
}

/**
 * The least a server does to keep each response for a resume in Redis: one command per response, awaited before
 * the response is sent (an id a client resumes from must name a stored event). One script takes the next seq of a
 * store-wide counter and appends the event to its session's list with a TTL; the event id is `<session>#<seq>`.
 * The client's own per-command timer is off (node-redis v6 gives every command a 5 s timeout with a timer and an
 * abort signal each, unless `timeout: 0`), and there is no deadline, no per-stream list, no trim, no completion
 * mark: a lower bound for what a Redis event store adds to a call, not a store to use.
 */
function leastRedisStore({ client, prefix }) {
  const untimed = client.withCommandOptions({ timeout: 0 });
  const script = `local seq = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], seq .. ' ' .. ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return seq`;
  return async (sessionId, text) => {
    const seq = await untimed.eval(script, { keys: [`${prefix}seq`, `${prefix}{${sessionId}}:log`], arguments: [text, '300000'] });
    return `${sessionId}#${seq}`;
  };
}

/** Servers of the scenarios that are not throughput runs (bench/resume.js, bench/memory.js, bench/fanout.js). */
const SCENARIO_SERVERS = ['resume-memory', 'resume-redis', 'sessions', 'fanout', 'fanout-floor'];

const builders = {
  /** The ceiling: Express parses the same JSON and answers the JSON-RPC result a tools/call of "sum" returns. */
  'express-bare'() {
    const app = express();
    const body = { jsonrpc: '2.0', id: 1, result: SUM_RESULT };
    app.post('/mcp', express.json(), (_req, res) => res.json(body));
    return { app };
  },

  'mcp-express'() {
    return ours({});
  },

  /** The Node floor: plain node:http reads the body, parses it and answers the same JSON-RPC result (its id echoed). */
  'node-floor'() {
    return { handler: floorHandler() };
  },

  /** The floor fed the 2026-07-28 request of node-mcp-2026 (the load generator sends it): what its size alone costs. */
  'node-floor-2026'() {
    return { handler: floorHandler() };
  },

  /** The floor answering as SSE the way the middleware does (SSE headers, a priming event, the response, end). */
  'node-floor-sse'() {
    return { handler: floorHandler({ sse: true }) };
  },

  /** The floor with 4 µs (8 µs) of busy JavaScript per request: what a handler's own work costs in the ratio. */
  'node-floor-plus-4us'() {
    return { handler: floorHandler({ spinMicros: 4 }) };
  },
  'node-floor-plus-8us'() {
    return { handler: floorHandler({ spinMicros: 8 }) };
  },

  /** The least a 2026-07-28 tools/call takes, by hand (see leastMcpHandler): a lower bound for node-mcp-2026. */
  'node-least-mcp-2026'() {
    return { handler: leastMcpHandler({ session: false }) };
  },

  /** The least a session tools/call answered as SSE takes, by hand: a lower bound for node-mcp-session. */
  'node-least-mcp-session'() {
    return { handler: leastMcpHandler({ session: true }) };
  },

  /** The least 2026-07-28 call by hand with what this project's standards ask of every call (leastStandard). */
  'node-least-standard-2026'() {
    return { handler: leastMcpHandler({ session: false, standard: true }) };
  },

  /** The least session call by hand with the standards' guard, limit, cancellation and a resumable answer. */
  'node-least-standard-session'() {
    return { handler: leastMcpHandler({ session: true, standard: true }) };
  },

  /** The least session call by hand that stores its response in Redis first: a lower bound for node-mcp-session-redis. */
  async 'node-least-mcp-session-redis'() {
    const client = await connectRedis();
    if (client instanceof Error) throw client;
    const prefix = uniquePrefix();
    const close = async () => {
      await deleteKeys(client, prefix);
      await client.close();
    };
    return { handler: leastMcpHandler({ session: true, redis: { client, prefix } }), close };
  },

  'node-mcp-2026'() {
    return ours({}, { mount: 'node' });
  },

  'node-mcp-session'() {
    return ours({}, { mount: 'node' });
  },

  'node-mcp-session-memory'() {
    return ours({}, { mount: 'node', stores: 'memory' });
  },

  'node-mcp-session-redis'() {
    return ours({}, { mount: 'node', stores: 'redis' });
  },

  'node-mcp-session-progress'() {
    return ours({}, { mount: 'node' });
  },

  'node-mcp-session-redis-progress'() {
    return ours({}, { mount: 'node', stores: 'redis' });
  },

  /** Resume of stored events (bench/resume.js): the tool "emit" sends `count` progress notifications, then "done". */
  'resume-memory'() {
    return ours({}, { mount: 'node', stores: 'resume-memory' });
  },

  'resume-redis'() {
    return ours({}, { mount: 'node', stores: 'resume-redis' });
  },

  /** Idle sessions (bench/memory.js): the default LocalSessionManager, room for 20,000 sessions. */
  sessions() {
    return ours({}, { mount: 'node', stores: 'sessions' });
  },

  /**
   * The fan-out floor (bench/fanout.js): plain node:http, no MCP. Every POST is read, parsed and answered with SSE
   * headers and an acknowledgement event, then kept open; a notify writes one list_changed event (its own
   * subscription id, like the middleware's) to every open response. What the kernel and Node cost per stream.
   */
  'fanout-floor'() {
    const open = new Set();
    const handler = (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
        const meta = { 'io.modelcontextprotocol/subscriptionId': id };
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: meta } })}\n\n`);
        const listener = { res, meta };
        open.add(listener);
        res.on('close', () => open.delete(listener));
      });
    };
    const server = {
      notifyToolsListChanged() {
        for (const { res, meta } of open) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta } })}\n\n`);
      },
    };
    return { handler, server };
  },

  /** subscriptions/listen fan-out (bench/fanout.js): room for 20,000 listeners; { type: 'notify' } over IPC. */
  fanout() {
    return ours({ maxSubscriptions: 20_000 }, { mount: 'node' });
  },

  'mcp-express-json'() {
    return ours({ enableJsonResponse: true });
  },

  /** The same server; the client speaks 2026-07-28 (see targets.js), so every call takes the stateless path. */
  'mcp-express-2026'() {
    return ours({});
  },

  /** The same two, from another CommonJS build (--alt-dist): to measure a patch side by side with the current build. */
  'mcp-express-alt'() {
    return ours({}, { dist: process.env.BENCH_ALT_DIST });
  },

  'mcp-express-json-alt'() {
    return ours({ enableJsonResponse: true }, { dist: process.env.BENCH_ALT_DIST });
  },

  /** The official SDK's documented stateful pattern (examples/server/simpleStreamableHttp): transports by session id. */
  'sdk-v1-stateful'() {
    const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
    const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
    const app = createMcpExpressApp();
    const transports = new Map();
    app.post('/mcp', async (req, res) => {
      try {
        const sessionId = req.headers['mcp-session-id'];
        let transport = sessionId ? transports.get(sessionId) : undefined;
        if (!transport) {
          if (sessionId || !isInitializeRequest(req.body)) {
            res.status(sessionId ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
            return;
          }
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              transports.set(id, transport);
            },
          });
          transport.onclose = () => {
            if (transport.sessionId) transports.delete(transport.sessionId);
          };
          await sdkServer().connect(transport);
        }
        await transport.handleRequest(req, res, req.body);
      } catch (error) {
        console.error('[bench sdk-v1-stateful]', error);
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
      }
    });
    return { app, close: async () => Promise.all([...transports.values()].map((t) => t.close())) };
  },

  /** The official SDK's documented stateless pattern (examples/server/simpleStatelessStreamableHttp): a new server and transport per request. */
  'sdk-v1-stateless'() {
    const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
    const app = createMcpExpressApp();
    app.post('/mcp', async (req, res) => {
      const server = sdkServer();
      try {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        res.on('close', () => {
          transport.close();
          server.close();
        });
      } catch (error) {
        console.error('[bench sdk-v1-stateless]', error);
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
      }
    });
    return { app };
  },
};

/**
 * Our middleware, from the built CommonJS output, mounted the documented way: `app.use(mcp)` in Express, or
 * `http.createServer((req, res) => mcp(req, res, notFound))` on plain node:http (`mount: 'node'`). `stores`:
 * 'memory' (in-memory event and session stores), 'redis' (Redis event store, session store, stream leases and
 * bus), 'resume-memory' / 'resume-redis' (an event store that keeps 2,000 events per stream), 'sessions'
 * (maxSessions 20,000).
 */
async function ours(options, { dist = process.env.BENCH_DIST || path.join(root, 'dist/cjs'), mount = 'express', stores } = {}) {
  if (!dist) throw new Error('BENCH_ALT_DIST is not set');
  const lib = require(path.resolve(root, dist, 'index.js'));
  const { McpServer, mcpMiddleware, LocalSessionManager, InMemoryEventStore, InMemorySessionStore } = lib;
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  const config = { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } };
  const handler = async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] });
  const register = (name, cfg, fn) => (typeof server.tool === 'function' ? server.tool(name, cfg, fn) : server.registerTool(name, cfg, fn));
  register('sum', config, handler);
  if (mount === 'node') {
    register('sum_progress', { description: 'Adds two numbers, sending one progress notification first', inputSchema: config.inputSchema }, async ({ a, b }, ctx) => {
      await ctx.progress(1, 1);
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    register('emit', { description: 'Sends `count` progress notifications, then answers "done"', inputSchema: { count: z.number().int().min(0).max(100_000) } }, async ({ count }, ctx) => {
      for (let i = 1; i <= count; i++) await ctx.progress(i, count, `event ${i}`);
      return { content: [{ type: 'text', text: 'done' }] };
    });
  }

  const cleanups = [];
  const extra = {};
  if (stores === 'memory') {
    extra.sessionManager = new LocalSessionManager({ eventStore: new InMemoryEventStore(), sessionStore: new InMemorySessionStore() });
  } else if (stores === 'resume-memory') {
    extra.sessionManager = new LocalSessionManager({ eventStore: new InMemoryEventStore({ maxEventsPerStream: 2000 }) });
  } else if (stores === 'sessions') {
    extra.sessionManager = new LocalSessionManager({ maxSessions: 20_000 });
  } else if (stores === 'redis' || stores === 'resume-redis') {
    const redisLib = require(path.resolve(root, dist, 'redis/index.js'));
    const client = await connectRedis();
    if (client instanceof Error) throw client;
    const prefix = uniquePrefix();
    const eventStore = new redisLib.RedisEventStore(client, { keyPrefix: `${prefix}events:`, ...(stores === 'resume-redis' ? { maxEventsPerStream: 2000 } : {}) });
    const streamLeases = new redisLib.RedisStreamLeases(client, { keyPrefix: `${prefix}lease:` });
    if (stores === 'redis') {
      const sessionStore = new redisLib.RedisSessionStore(client, { keyPrefix: `${prefix}session:` });
      extra.sessionManager = new LocalSessionManager({ eventStore, sessionStore, streamLeases });
      const bus = new redisLib.RedisMessageBus(client, { channelPrefix: `${prefix}bus:` });
      extra.bus = bus;
      cleanups.push(() => bus.close());
    } else {
      extra.sessionManager = new LocalSessionManager({ eventStore, streamLeases });
    }
    cleanups.push(async () => {
      await deleteKeys(client, prefix);
      await client.close();
    });
  }
  const middleware = mcpMiddleware({ server, ...extra, ...options });
  if (typeof middleware.ready === 'function') await middleware.ready();
  const close = async () => {
    await middleware.close();
    for (const cleanup of cleanups) await cleanup();
  };
  if (mount === 'node') {
    const notFound = (res) => () => {
      res.statusCode = 404;
      res.end();
    };
    return { handler: (req, res) => middleware(req, res, notFound(res)), close, server };
  }
  const app = express();
  app.use(middleware);
  return { app, close, server };
}

function sdkServer() {
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}

async function main() {
  const target = process.argv[2];
  const build = builders[target];
  if (!build || !(TARGETS.some((t) => t.name === target) || SCENARIO_SERVERS.includes(target))) {
    console.error(`usage: node bench/server.js <${Object.keys(builders).join('|')}>`);
    process.exit(2);
  }
  const { app, handler, close, server: mcpServer } = await build();
  const listener = handler ? http.createServer(handler) : http.createServer(app);
  listener.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
    const { port } = listener.address();
    if (process.send) process.send({ type: 'ready', port });
    else console.log(`${target} listening on http://127.0.0.1:${port}/mcp`);
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), 4000);
    force.unref();
    try {
      await close?.();
    } catch (error) {
      console.error(`[bench ${target}] close:`, error.message);
    }
    listener.closeAllConnections();
    listener.close(() => process.exit(0));
  };
  process.on('message', (message) => {
    if (!message) return;
    if (message.type === 'stop') void stop();
    // CPU time is what a noisy shared machine cannot distort much: the parent samples it around each run.
    if (message.type === 'usage') process.send({ type: 'usage', seq: message.seq, cpu: process.cpuUsage(), heapUsed: process.memoryUsage().heapUsed });
    if (message.type === 'memory') {
      // Several full collections, so that what is left is what is still referenced.
      for (let i = 0; i < 4; i++) global.gc?.();
      const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
      process.send({ type: 'memory', seq: message.seq, heapUsed, rss, external, arrayBuffers, gc: typeof global.gc === 'function' });
    }
    if (message.type === 'heap-snapshot') {
      for (let i = 0; i < 4; i++) global.gc?.();
      const file = require('node:v8').writeHeapSnapshot(message.file);
      process.send({ type: 'heap-snapshot', seq: message.seq, file });
    }
    if (message.type === 'notify' && message.profileFile) {
      // CPU profile of the fan-out alone (not of opening the streams): the inspector's profiler around one notify.
      const inspector = require('node:inspector');
      const session = new inspector.Session();
      session.connect();
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 100 }, () =>
          session.post('Profiler.start', () => {
            const at = performance.timeOrigin + performance.now();
            mcpServer.notifyToolsListChanged();
            setImmediate(() =>
              setImmediate(() =>
                session.post('Profiler.stop', (error, result) => {
                  if (!error) require('node:fs').writeFileSync(message.profileFile, JSON.stringify(result.profile));
                  session.disconnect();
                  process.send({ type: 'notified', seq: message.seq, at, after: at, settledAt: performance.timeOrigin + performance.now(), busyMs: NaN, error: error?.message });
                }),
              ),
            );
          }),
        ),
      );
      return;
    }
    if (message.type === 'notify') {
      const at = performance.timeOrigin + performance.now();
      const loop = performance.eventLoopUtilization();
      mcpServer.notifyToolsListChanged();
      const after = performance.timeOrigin + performance.now();
      // When the event loop next gets to its check phase: the writes the notification caused are done by then
      // (handed to the kernel, or queued on congested sockets); `busyMs`: event-loop active time until then.
      setImmediate(() =>
        setImmediate(() => {
          const busyMs = performance.eventLoopUtilization(loop).active;
          process.send({ type: 'notified', seq: message.seq, at, after, settledAt: performance.timeOrigin + performance.now(), busyMs });
        }),
      );
    }
  });
  process.on('disconnect', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`[bench server] ${error.message}`);
    process.exit(1);
  });
}

/** The same servers built in another process (bench/in-process.js drives their handlers without sockets). */
module.exports = { builders };
