/**
 * The server both official-client suites (sdk-v1, sdk-v2) talk to: one McpServer with a tool, resource, template
 * and prompt for every feature the interop tests cover, served by our middleware on 127.0.0.1 over real HTTP.
 */
import { z } from 'zod';
import type { AuthInfo } from '../../lib/protocol/types.js';
import { McpServer, type RequestContext } from '../../lib/index.js';
import { serve, type Served } from '../helpers/serve.js';
import { waitUntil } from '../helpers/wire.js';

export const PROTOCOL_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** What the app-level auth middleware (mounted before ours) puts on `req.auth`. */
export const AUTH: AuthInfo = { token: 'tok-interop-123', clientId: 'client-interop', scopes: ['mcp:read', 'mcp:write'] };

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled: boolean;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const d = { settled: false } as Deferred<T>;
  d.promise = new Promise<T>((r) => (resolve = r));
  d.resolve = (value: T) => {
    d.settled = true;
    resolve(value);
  };
  return d;
}

/** Rejects with `label` if `promise` does not settle within `ms`, so a missing event fails fast with a clear message. */
export function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${label}`)), ms);
    }),
  ]);
}

export { sleep } from '../helpers/wire.js';

/** Polls `check` until it is true (notifications are dispatched asynchronously by both clients). */
export const waitFor = (check: () => boolean, label: string, ms = 5000): Promise<void> => waitUntil(check, label, ms);

export interface Fixture {
  server: McpServer;
  served: Served;
  url: URL;
  /** The `wait` tool has started (so the client may cancel it). */
  waitStarted: Deferred<void>;
  /** The `wait` tool's `ctx.signal` fired; resolves with the abort reason. */
  waitAborted: Deferred<unknown>;
  /** Number of GET requests (the client's standalone SSE stream) that reached the app. */
  gets(): number;
  /** The `authInfo` each tools/call handler saw, in order. */
  seenAuth: Array<AuthInfo | undefined>;
  close(): Promise<void>;
}

/** The text of a tool result's content blocks, joined (the v1 client types callTool's result loosely). */
export function text(result: unknown): string {
  const content = (result as { content?: unknown }).content as Array<{ type: string; text?: string }> | undefined;
  return (content ?? []).map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

export function buildServer(f: Pick<Fixture, 'waitStarted' | 'waitAborted' | 'seenAuth'>): McpServer {
  const server = new McpServer({ name: 'interop-fixture', version: '1.2.3' }, { instructions: 'Interop test server' });
  const record = (ctx: RequestContext) => f.seenAuth.push(ctx.authInfo);

  server.tool('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }, ctx) => {
    record(ctx);
    return { content: [{ type: 'text', text: String(a + b) }] };
  });

  server.tool(
    'stats',
    {
      description: 'Count, total and mean of some numbers',
      inputSchema: { values: z.array(z.number()) },
      outputSchema: { count: z.number(), total: z.number(), mean: z.number() },
    },
    ({ values }) => {
      const total = values.reduce((sum, value) => sum + value, 0);
      const structuredContent = { count: values.length, total, mean: values.length ? total / values.length : 0 };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );

  server.tool('progress', { description: 'Reports progress', inputSchema: { steps: z.number().int().min(1) } }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      ctx.progress(i, steps, `step ${i} of ${steps}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { content: [{ type: 'text', text: `did ${steps} steps` }] };
  });

  server.tool('log', { description: 'Logs at debug, info and error' }, (_args, ctx) => {
    ctx.log('debug', 'a debug message');
    ctx.log('info', { note: 'an info message' }, 'interop');
    ctx.log('error', 'an error message');
    return { content: [{ type: 'text', text: 'logged' }] };
  });

  server.tool('ask-name', { description: 'Elicits the user name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', description: 'Your name' } }, required: ['name'] },
    });
    const name = answer.action === 'accept' ? String(answer.content?.name) : '';
    return { content: [{ type: 'text', text: `${answer.action}:${name}` }] };
  });

  server.tool('haiku', { description: 'Asks the client model via sampling', inputSchema: { topic: z.string() } }, async ({ topic }, ctx) => {
    const result = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Write a haiku about ${topic}` } }],
      maxTokens: 50,
      systemPrompt: 'You are a poet',
    });
    const content = result.content as { type: string; text?: string };
    return { content: [{ type: 'text', text: `${result.model}|${result.role}|${content.type === 'text' ? content.text : content.type}` }] };
  });

  server.tool('roots', { description: 'Lists the client roots' }, async (_args, ctx) => {
    const { roots } = await ctx.listRoots();
    return { content: [{ type: 'text', text: roots.map((root) => `${root.name ?? ''}=${root.uri}`).join(',') }] };
  });

  server.tool('wait', { description: 'Waits until cancelled' }, async (_args, ctx) => {
    f.waitStarted.resolve();
    const reason = await new Promise<unknown>((resolve) => {
      if (ctx.signal.aborted) return resolve(ctx.signal.reason);
      ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason), { once: true });
    });
    f.waitAborted.resolve(reason);
    return { content: [{ type: 'text', text: 'aborted' }] };
  });

  server.tool('whoami', { description: 'Echoes the auth info' }, (_args, ctx) => {
    record(ctx);
    const auth = ctx.authInfo;
    return { content: [{ type: 'text', text: JSON.stringify(auth ? { token: auth.token, clientId: auth.clientId, scopes: auth.scopes } : null) }] };
  });

  server.resource('readme', 'file:///project/README.md', { title: 'Read me', description: 'The project read-me', mimeType: 'text/markdown' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Interop\nHello from a static resource.' }],
  }));

  server.resourceTemplate(
    'greeting',
    'greeting://{name}',
    {
      description: 'A greeting for anyone',
      mimeType: 'text/plain',
      complete: { name: (value) => ['alice', 'albert', 'bob'].filter((name) => name.startsWith(value)) },
    },
    (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${name}!` }] }),
  );

  server.prompt(
    'review',
    {
      title: 'Code review',
      description: 'Reviews code',
      argsSchema: { code: z.string().describe('The code to review'), language: z.string().optional().describe('Its language') },
      complete: { language: (value) => ['python', 'perl', 'typescript'].filter((language) => language.startsWith(value)) },
    },
    ({ code, language }) => ({
      description: 'A review request',
      messages: [{ role: 'user', content: { type: 'text', text: `Please review this ${language ?? 'code'}:\n${code}` } }],
    }),
  );

  return server;
}

/**
 * Starts the fixture server; with `auth`, an app-level middleware before ours sets `req.auth = AUTH`; with
 * `jsonResponse`, the middleware runs with `enableJsonResponse: true`; with `legacySessions: false`, 2025-era
 * clients are served without sessions.
 */
export async function startFixture(options: { auth?: boolean; jsonResponse?: boolean; legacySessions?: boolean } = {}): Promise<Fixture> {
  const state = { waitStarted: deferred<void>(), waitAborted: deferred<unknown>(), seenAuth: [] as Array<AuthInfo | undefined> };
  const server = buildServer(state);
  let gets = 0;
  const served = await serve({ server, enableJsonResponse: options.jsonResponse ?? false, legacySessions: options.legacySessions ?? true }, (app) => {
    app.use((req, _res, next) => {
      if (req.method === 'GET') gets++;
      if (options.auth) (req as typeof req & { auth?: AuthInfo }).auth = { ...AUTH, scopes: [...AUTH.scopes] };
      next();
    });
  });
  return {
    ...state,
    server,
    served,
    url: new URL(served.url),
    gets: () => gets,
    close: () => served.close(),
  };
}

export interface Exchange {
  method: string;
  /** The JSON-RPC method of a POSTed request or notification (undefined for responses, GET and DELETE). */
  rpc: string | undefined;
  status: number;
  contentType: string | null;
}

/** A fetch for the clients' `fetch` option that records each HTTP exchange, to see how the server answered. */
export function recordingFetch(log: Exchange[]): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    let rpc: string | undefined;
    if (typeof init?.body === 'string') {
      try {
        rpc = (JSON.parse(init.body) as { method?: string }).method;
      } catch {
        rpc = undefined;
      }
    }
    log.push({ method: init?.method ?? 'GET', rpc, status: response.status, contentType: response.headers.get('content-type') });
    return response;
  };
}

/** A raw POST of a `ping` with a session id: how the tests see what the server says about a session after DELETE. */
export async function rawPing(url: URL, sessionId: string, protocolVersion: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'raw-ping', method: 'ping' }),
  });
  return { status: response.status, body: await response.text() };
}
