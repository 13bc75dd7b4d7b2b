/**
 * An official SDK v1 client whose every HTTP request (POST, GET, DELETE) goes to the next of several instances in
 * turn: a `fetch` that rewrites the port round-robin. The scenario drives one session through it and checks that
 * no request needed the instance that came before (issue 9: any instance serves any request).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { rawRequest } from '../helpers/modern.js';
import { clientHeaders } from '../helpers/http-helpers.js';

/** One HTTP request the client sent, where it went and what came back. */
export interface SentRequest {
  method: string;
  port: number;
  /** The JSON-RPC message of a POST. */
  message?: { id?: string | number; method?: string; result?: unknown; params?: { name?: string } };
  lastEventId?: string;
  /** 0 until the response headers arrive. */
  status: number;
}

/** A `fetch` for the SDK that sends request n to `ports[n % ports.length]`, recording each request in `log`. */
export function rotatingFetch(ports: readonly number[], log: SentRequest[]) {
  let next = 0;
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const port = ports[next++ % ports.length];
    url.port = String(port);
    const headers = new Headers(init?.headers);
    const entry: SentRequest = { method: init?.method ?? 'GET', port, status: 0 };
    if (typeof init?.body === 'string') entry.message = JSON.parse(init.body) as SentRequest['message'];
    const lastEventId = headers.get('last-event-id');
    if (lastEventId !== null) entry.lastEventId = lastEventId;
    log.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    return response;
  };
}

/** What the scenario needs to know of the deployment under test. */
export interface Deployment {
  /** The instances' ports, in the rotation's order. */
  ports: readonly number[];
  /** A tool that elicits, its arguments, and the text its result must contain once the client accepted. */
  elicitation: { tool: string; arguments: Record<string, unknown>; resultContains: string };
  /** A tool `{ a, b }` → the text of `a + b`. */
  sumTool: string;
  /** Makes the instance on `port` announce a tool list change to the session. */
  triggerToolListChanged(port: number, sessionId: string, protocolVersion: string): Promise<void>;
}

/** The answer to every elicitation: the fields of both elicitation tools (`name`; `username` and `email`). */
const ELICITED = { name: 'Ada', username: 'ada', email: 'ada@example.com' };

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * One session through the rotating client: initialize, tool calls, `slow_count` with progress, an elicitation
 * answered through another instance than the one running the tool, a list_changed sent by an instance other than
 * the one holding the GET stream, and DELETE, after which every instance answers 404 for the session.
 */
export async function runRotatingSession(deployment: Deployment): Promise<void> {
  const { ports } = deployment;
  const log: SentRequest[] = [];
  const client = new Client({ name: 'rotating-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const elicited: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: ELICITED };
  });
  let toolListChanged!: () => void;
  const listChanged = new Promise<void>((resolve) => (toolListChanged = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => toolListChanged());
  const errors: Error[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ports[0]}/mcp`), { fetch: rotatingFetch(ports, log) });
  transport.onerror = (error) => errors.push(error);
  try {
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    const protocolVersion = transport.protocolVersion!;
    expect(sessionId).toEqual(expect.any(String));

    // Tool calls, spread over every instance.
    for (let i = 0; i < 2 * ports.length; i++) {
      const result = await client.callTool({ name: deployment.sumTool, arguments: { a: i, b: 100 } });
      expect(result.content).toEqual([{ type: 'text', text: String(i + 100) }]);
    }
    const sumPorts = new Set(log.filter((sent) => sent.message?.params?.name === deployment.sumTool).map((sent) => sent.port));
    expect([...sumPorts].sort()).toEqual([...ports].sort());

    // Progress of slow_count: every notification once, in order, then the result.
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'slow_count', arguments: { n: 10, intervalMs: 20 } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 10' }]);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // An elicitation: the tool runs where its call went, the answer goes to whichever instance is next.
    const elicitation = await client.callTool({ name: deployment.elicitation.tool, arguments: deployment.elicitation.arguments });
    expect(elicited).toHaveLength(1);
    expect((elicitation.content as Array<{ text?: string }>).map((block) => block.text).join('')).toContain(deployment.elicitation.resultContains);
    const call = log.find((sent) => sent.message?.params?.name === deployment.elicitation.tool)!;
    const answer = log.find((sent) => sent.method === 'POST' && sent.message?.result !== undefined && sent.message?.method === undefined)!;
    expect(answer).toBeDefined();
    // The tool's result can reach the client before the instance that took the answer has replied to its POST: it
    // replies once the bus has the answer, and the running instance may have it (and finish) first.
    await until(() => answer.status !== 0, 10_000, 'the reply to the POST of the elicitation answer');
    expect(answer.status).toBe(202);
    expect(answer.port).not.toBe(call.port);

    // The standalone GET stream (opened after notifications/initialized) is held by one instance; another one
    // announces the change.
    await until(() => log.some((sent) => sent.method === 'GET' && sent.status === 200), 10_000, 'the GET stream');
    const get = log.find((sent) => sent.method === 'GET' && sent.status === 200)!;
    const elsewhere = ports.find((port) => port !== get.port)!;
    await deployment.triggerToolListChanged(elsewhere, sessionId, protocolVersion);
    await within(listChanged, 10_000, `notifications/tools/list_changed sent by the instance on ${elsewhere} to the GET stream on ${get.port}`);

    // Nothing went wrong on the way (a failed request, a stream that broke off).
    expect(errors.map((error) => error.message)).toEqual([]);

    // DELETE through the rotation, then the session is gone on every instance.
    await transport.terminateSession();
    const deleted = log.filter((sent) => sent.method === 'DELETE');
    expect(deleted.map((sent) => sent.status)).toEqual([200]);
    for (const port of ports) {
      const after = await rawRequest(port, 'POST', clientHeaders(protocolVersion, sessionId), JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
      expect([port, after.status]).toEqual([port, 404]);
    }
    // Every instance served some of the session's requests.
    expect(new Set(log.map((sent) => sent.port)).size).toBe(ports.length);
  } finally {
    await client.close();
  }
}
