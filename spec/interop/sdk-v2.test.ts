/**
 * Interop with the official TypeScript SDK v2 client (@modelcontextprotocol/client 2.x) over real HTTP on
 * 127.0.0.1: every shared scenario (scenarios.ts) through the client's default 'legacy' version negotiation (the
 * 2025-era initialize handshake, with sessions), then what only v2 does: its listChanged option, and negotiation
 * ({ pin: '2026-07-28' } and 'auto'), which selects the stateless 2026-07-28 era.
 */
import {
  Client,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type LoggingMessageNotificationParams,
  type Progress,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { AUTH, recordingFetch, sleep, text, waitFor, within, type Exchange, type Fixture } from './fixture.js';
import { describeInteropScenarios, fixtureLifecycle, FULL_CAPABILITIES, type ClientAdapter, type InteropClient } from './scenarios.js';

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every HTTP exchange the client's transport made. */
  exchanges: Exchange[];
}

/** Connects a v2 client to `fixture`; `options` are the client's own constructor options. */
async function connectV2(fixture: Fixture, options: ClientOptions = {}, setup?: (client: Client) => void): Promise<Connected> {
  const client = new Client({ name: 'interop-v2', version: '0.0.1' }, { capabilities: {}, ...options });
  setup?.(client);
  const exchanges: Exchange[] = [];
  const transport = new StreamableHTTPClientTransport(fixture.url, { fetch: recordingFetch(exchanges) });
  await client.connect(transport);
  return { client, transport, exchanges };
}

const v2: ClientAdapter<Connected & { client: Client & InteropClient }> = {
  name: 'sdk v2 client',
  versionChoice: 'supporting only',
  connect: async (fixture, { capabilities, version }) =>
    (await connectV2(fixture, { capabilities, ...(version ? { supportedProtocolVersions: [version] } : {}) })) as Connected & { client: Client & InteropClient },
  negotiatedVersion: ({ client }) => client.getNegotiatedProtocolVersion(),
  ProtocolError,
};

describeInteropScenarios(v2);

// What only the v2 client does.
const lifecycle = fixtureLifecycle();
const startWith = lifecycle.startWith;
const connect = async (options: ClientOptions = {}, setup?: (client: Client) => void): Promise<Connected> => lifecycle.track(await connectV2(lifecycle.fixture, options, setup));

describe('sdk v2 client with its default (legacy) negotiation', () => {
  beforeEach(() => startWith());

  test('selects the legacy era at 2025-11-25, with a session', async () => {
    const { client, transport } = await connect();
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/\S+/);
  });

  test('listChanged option: the client refreshes its tool list by itself on list_changed', async () => {
    const refreshed: string[][] = [];
    await connect({
      listChanged: { tools: { onChanged: (error, tools) => (error ? refreshed.push(['error: ' + error.message]) : refreshed.push((tools ?? []).map((tool) => tool.name))) } },
    });
    await waitFor(() => lifecycle.fixture.gets() > 0, 'the client to open its GET stream');
    await new Promise((resolve) => setTimeout(resolve, 50));
    lifecycle.fixture.server.tool('late', { description: 'Added at runtime' }, () => ({ content: [] }));
    await waitFor(() => refreshed.length > 0, 'the listChanged onChanged callback', 10_000);
    expect(refreshed[0]).toContain('late');
  });
});

const PINNED: ClientOptions = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

/** Registers answers for the three kinds of server→client request (2026-07-28: fulfilled from input_required). */
function answerServerRequests(client: Client): void {
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Ada' } }));
  client.setRequestHandler('sampling/createMessage', () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Autumn moonlight' } }));
  client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///home/user/project', name: 'project' }] }));
}

describe('sdk v2 client negotiating 2026-07-28 (stateless era)', () => {
  beforeEach(() => startWith());

  test("pinned to 2026-07-28: server/discover selects the modern era, with no initialize and no session", async () => {
    const { client, transport, exchanges } = await connect(PINNED);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: {}, prompts: { listChanged: true } });
    expect(client.getDiscoverResult()?.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
    expect(exchanges.map((exchange) => `${exchange.method} ${exchange.rpc} ${exchange.status}`)).toEqual(['POST server/discover 200']);
    expect(text(await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(lifecycle.fixture.gets()).toBe(0);
  });

  test("'auto' negotiation probes and picks 2026-07-28 as well", async () => {
    const { client } = await connect({ versionNegotiation: { mode: 'auto' } });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(text(await client.callTool({ name: 'sum', arguments: { a: 20, b: 22 } }))).toBe('42');
  });

  test('tools: list, call, invalid arguments and structuredContent', async () => {
    const { client, exchanges } = await connect(PINNED);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask-name', 'haiku', 'log', 'progress', 'roots', 'stats', 'sum', 'wait', 'whoami']);
    expect(text(await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } }))).toBe('5');
    const invalid = await client.callTool({ name: 'sum', arguments: { a: 'two', b: 3 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/Invalid arguments for tool sum: a/);
    const stats = await client.callTool({ name: 'stats', arguments: { values: [1, 2, 3, 6] } });
    expect(stats.structuredContent).toEqual({ count: 4, total: 12, mean: 3 });
    for (const exchange of exchanges.filter((e) => e.rpc === 'tools/call')) {
      expect(exchange).toMatchObject({ status: 200, contentType: expect.stringMatching(/^application\/json/) });
    }
  });

  test('progress notifications stream back on the request (SSE)', async () => {
    const { client, exchanges } = await connect(PINNED);
    const updates: Progress[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (progress) => updates.push(progress) });
    expect(text(result)).toBe('did 3 steps');
    await waitFor(() => updates.length >= 3, 'three progress notifications');
    expect(updates.map((update) => update.progress)).toEqual([1, 2, 3]);
    expect(exchanges.find((e) => e.rpc === 'tools/call')).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/event-stream/) });
  });

  test('log messages at the level the request _meta asks for, and none without one', async () => {
    const { client } = await connect(PINNED);
    const messages: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      messages.push(notification.params);
    });
    await expect(client.setLoggingLevel('info')).rejects.toThrow(/logging\/setLevel/); // removed in 2026-07-28
    expect(text(await client.callTool({ name: 'log', arguments: {} }))).toBe('logged');
    await sleep(50);
    expect(messages).toEqual([]);
    expect(text(await client.callTool({ name: 'log', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'info' } }))).toBe('logged');
    await waitFor(() => messages.length >= 2, 'two log messages');
    await sleep(50);
    expect(messages).toEqual([
      { level: 'info', logger: 'interop', data: { note: 'an info message' } },
      { level: 'error', data: 'an error message' },
    ]);
  });

  test('elicitation, sampling and roots: input_required rounds the client fulfils with its handlers', async () => {
    const { client, exchanges } = await connect({ ...PINNED, capabilities: FULL_CAPABILITIES }, answerServerRequests);
    expect(text(await client.callTool({ name: 'ask-name', arguments: {} }))).toBe('accept:Ada');
    expect(text(await client.callTool({ name: 'haiku', arguments: { topic: 'the moon' } }))).toBe('test-model|assistant|Autumn moonlight');
    expect(text(await client.callTool({ name: 'roots', arguments: {} }))).toBe('project=file:///home/user/project');
    // Each call took two rounds: input_required, then the retry carrying the answers.
    expect(exchanges.filter((exchange) => exchange.rpc === 'tools/call')).toHaveLength(6);
  });

  test('resources, prompts and completion', async () => {
    const { client } = await connect(PINNED);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['file:///project/README.md']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['greeting://{name}']);
    expect((await client.readResource({ uri: 'file:///project/README.md' })).contents).toEqual([
      { uri: 'file:///project/README.md', mimeType: 'text/markdown', text: '# Interop\nHello from a static resource.' },
    ]);
    expect((await client.readResource({ uri: 'greeting://world' })).contents).toEqual([{ uri: 'greeting://world', mimeType: 'text/plain', text: 'Hello, world!' }]);
    await expect(client.readResource({ uri: 'nothing://here' })).rejects.toThrow(/Resource not found/);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['review']);
    const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'print(1)', language: 'python' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please review this python:\nprint(1)' } }]);
    await expect(client.getPrompt({ name: 'review', arguments: {} })).rejects.toThrow(/code/);
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 'p' } });
    expect(completion.completion).toEqual({ values: ['python', 'perl'], total: 2, hasMore: false });
  });

  test('notifications/tools/list_changed through subscriptions/listen', async () => {
    const { client } = await connect(PINNED);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    lifecycle.fixture.server.tool('late', { description: 'Added at runtime', inputSchema: { x: z.string() } }, ({ x }) => ({ content: [{ type: 'text', text: x.toUpperCase() }] }));
    await waitFor(() => changed > 0, 'notifications/tools/list_changed');
    expect(text(await client.callTool({ name: 'late', arguments: { x: 'hi' } }))).toBe('HI');
    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
  });

  test('listChanged option: the client opens the subscription and refreshes its tool list by itself', async () => {
    const refreshed: string[][] = [];
    const { client } = await connect({ ...PINNED, listChanged: { tools: { onChanged: (_error, tools) => refreshed.push((tools ?? []).map((tool) => tool.name)) } } });
    expect(client.autoOpenedSubscription).toBeDefined();
    lifecycle.fixture.server.tool('late', { description: 'Added at runtime' }, () => ({ content: [] }));
    await waitFor(() => refreshed.length > 0, 'the listChanged onChanged callback', 10_000);
    expect(refreshed[0]).toContain('late');
  });

  test('cancellation: aborting the call fires the handler ctx.signal', async () => {
    const { client } = await connect(PINNED);
    const controller = new AbortController();
    const settled = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal }).then(
      () => 'resolved',
      (error: Error) => error,
    );
    await within(lifecycle.fixture.waitStarted.promise, 5000, 'the wait tool to start');
    controller.abort('the user gave up');
    expect(await settled).toBeInstanceOf(Error);
    await within(lifecycle.fixture.waitAborted.promise, 5000, 'the server handler ctx.signal to fire');
    expect(text(await client.callTool({ name: 'sum', arguments: { a: 1, b: 1 } }))).toBe('2');
  });
});

describe('sdk v2 client negotiating 2026-07-28 with app-level auth middleware', () => {
  beforeEach(() => startWith({ auth: true }));

  test('a tool sees req.auth as ctx.authInfo', async () => {
    const { client } = await connect(PINNED);
    expect(JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({ token: AUTH.token, clientId: AUTH.clientId, scopes: AUTH.scopes });
    expect(lifecycle.fixture.seenAuth).toEqual([AUTH]);
  });
});
