/**
 * Interop with the official SDK v2 client (@modelcontextprotocol/client 2.4.0) in its three version-negotiation
 * modes: pinned to 2026-07-28, `'auto'` (probe with server/discover; must end up modern against this server) and
 * the default `'legacy'` (2025 initialize + session). In each, a tool reports the version it sees and a tool that
 * needs elicitation is answered by the client's `elicitation/create` handler (MRTR in the modern era, a real
 * server→client request in the legacy era).
 */
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { MODERN, startModern, textOf, type ModernHarness } from '../helpers/modern.js';

interface Exchange {
  method: string;
  headers: Record<string, string>;
  body: any;
  status: number;
  responseHeaders: Record<string, string>;
}

function recordingFetch(log: Exchange[]) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    let body: any;
    if (typeof init?.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    log.push({ method: init?.method ?? 'GET', headers, body, status: response.status, responseHeaders });
    return response;
  };
}

type Mode = NonNullable<NonNullable<ClientOptions['versionNegotiation']>['mode']>;

let h: ModernHarness;
const clients: Client[] = [];

beforeEach(async () => {
  h = await startModern();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await h.close();
});

async function connect(mode: Mode | undefined, elicitedName = 'Alice'): Promise<{ client: Client; transport: StreamableHTTPClientTransport; exchanges: Exchange[]; elicitations: any[] }> {
  const options: ClientOptions = { capabilities: { elicitation: {} } };
  if (mode !== undefined) options.versionNegotiation = { mode };
  const client = new Client({ name: 'stateless-interop', version: '0.0.1' }, options);
  const elicitations: any[] = [];
  client.setRequestHandler('elicitation/create', (request) => {
    elicitations.push(request.params);
    const properties = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    const content: Record<string, string> = properties.includes('color') ? { color: 'blue' } : { name: elicitedName };
    return { action: 'accept', content };
  });
  const exchanges: Exchange[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(h.url), { fetch: recordingFetch(exchanges) });
  clients.push(client);
  await client.connect(transport);
  return { client, transport, exchanges, elicitations };
}

async function whoami(client: Client): Promise<{ protocolVersion: string; sessionId: string | null; clientInfo: unknown }> {
  return JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
}

describe.each([
  ['pinned to 2026-07-28', { pin: MODERN } as Mode],
  ["'auto'", 'auto' as Mode],
])('modern client, %s', (_label, mode) => {
  test('negotiates 2026-07-28 with no session, and the handler sees 2026-07-28', async () => {
    const { client, transport, exchanges } = await connect(mode);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toEqual({ name: 'stateless-spec', version: '2.0.0' });
    expect(client.getDiscoverResult()?.supportedVersions).toContain(MODERN);
    expect(client.getInstructions()).toBe('Stateless test server');
    expect(transport.sessionId).toBeUndefined();

    const seen = await whoami(client);
    expect(seen).toEqual({ protocolVersion: MODERN, sessionId: null, clientInfo: { name: 'stateless-interop', version: '0.0.1' } });

    // The wire: server/discover first, no initialize, SEP-2243 headers, no session anywhere, no GET stream.
    expect(exchanges[0].body.method).toBe('server/discover');
    expect(exchanges.some((exchange) => exchange.body?.method === 'initialize')).toBe(false);
    for (const exchange of exchanges) {
      expect(exchange.method).toBe('POST');
      expect(exchange.headers['mcp-session-id']).toBeUndefined();
      expect(exchange.responseHeaders['mcp-session-id']).toBeUndefined();
    }
    const call = exchanges.find((exchange) => exchange.body?.method === 'tools/call')!;
    expect(call.headers).toMatchObject({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' });
    expect(call.body.params._meta['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
    expect(call.status).toBe(200);
  });

  test('an elicitation tool completes through the client handler in two rounds (input_required + retry)', async () => {
    const { client, exchanges, elicitations } = await connect(mode, 'Grace');
    const result = await client.callTool({ name: 'greet', arguments: {} });
    expect(textOf(result)).toBe('Hello, Grace!');
    expect(elicitations).toEqual([{ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }]);
    const calls = exchanges.filter((exchange) => exchange.body?.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0].body.params.inputResponses).toBeUndefined();
    expect(calls[1].body.params.inputResponses).toEqual({ user_name: { action: 'accept', content: { name: 'Grace' } } });
    expect(typeof calls[1].body.params.requestState).toBe('string');
    expect(calls[1].body.id).not.toBe(calls[0].body.id);
  });

  test('a multi-round tool completes through repeated rounds', async () => {
    const { client } = await connect(mode, 'Ada');
    expect(textOf(await client.callTool({ name: 'two_step', arguments: {} }))).toBe('Ada likes blue');
  });

  test('Mcp-Param-* headers are mirrored for x-mcp-header arguments (base64 for non-ASCII) and accepted', async () => {
    const { client, exchanges } = await connect(mode);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['region_tool', 'count_tool']));
    for (const region of ['eu-west1', 'Zürich']) {
      expect(textOf(await client.callTool({ name: 'region_tool', arguments: { region } }))).toBe(`region=${region}`);
    }
    const regionCalls = exchanges.filter((exchange) => exchange.body?.params?.name === 'region_tool');
    expect(regionCalls.map((exchange) => exchange.status)).toEqual([200, 200]);
    expect(regionCalls[0].headers['mcp-param-region']).toBe('eu-west1');
    expect(regionCalls[1].headers['mcp-param-region']).toMatch(/^=\?base64\?.*\?=$/);
    expect(textOf(await client.callTool({ name: 'count_tool', arguments: { count: 42 } }))).toBe('count=42');
    expect(exchanges.find((exchange) => exchange.body?.params?.name === 'count_tool')?.headers['mcp-param-count']).toBe('42');
  });

  test('a tool needing an undeclared capability surfaces -32021', async () => {
    const { client } = await connect(mode);
    await expect(client.callTool({ name: 'needs_sampling', arguments: {} })).rejects.toMatchObject({ code: -32021 });
  });

  test('listen delivers list_changed to the client handler and close ends it', async () => {
    const { client } = await connect(mode);
    const changed: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed.push('tools');
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    h.server.tool('late', { description: 'late' }, () => ({ content: [] }));
    const deadline = Date.now() + 3000;
    while (changed.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(changed).toEqual(['tools']);
    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
  });

  test('middleware.close() ends a listen gracefully from the client’s point of view', async () => {
    const { client } = await connect(mode);
    const subscription = await client.listen({ promptsListChanged: true });
    await h.middleware.close();
    await expect(subscription.closed).resolves.toBe('graceful');
  });
});

describe("legacy client (default 'legacy' mode)", () => {
  test('initializes a 2025-11-25 session; the handler sees the session', async () => {
    const { client, transport, exchanges } = await connect(undefined);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/\S+/);
    const seen = await whoami(client);
    expect(seen).toMatchObject({ protocolVersion: '2025-11-25', sessionId: transport.sessionId });
    expect(exchanges[0].body.method).toBe('initialize');
    expect(exchanges.some((exchange) => exchange.body?.method === 'server/discover')).toBe(false);
  });

  test('the same elicitation tool works through a real elicitation/create request', async () => {
    const { client, exchanges, elicitations } = await connect(undefined, 'Linus');
    expect(textOf(await client.callTool({ name: 'greet', arguments: {} }))).toBe('Hello, Linus!');
    expect(elicitations).toHaveLength(1);
    // One tools/call; the answer went back as a JSON-RPC response POST.
    expect(exchanges.filter((exchange) => exchange.body?.method === 'tools/call')).toHaveLength(1);
    const answer = exchanges.find((exchange) => exchange.method === 'POST' && exchange.body && 'result' in exchange.body && exchange.body.result.action === 'accept');
    expect(answer?.status).toBe(202);
  });

  test('a multi-round tool works in one call with two requests', async () => {
    const { client, elicitations } = await connect(undefined, 'Ada');
    expect(textOf(await client.callTool({ name: 'two_step', arguments: {} }))).toBe('Ada likes blue');
    expect(elicitations.map((params) => params.message)).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
  });
});
