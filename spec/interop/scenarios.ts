/**
 * The interop scenarios every official client runs (sdk-v1.test.ts, sdk-v2.test.ts), written once against the
 * calls both SDK versions share, in the v2 client's shape: `callTool(params, { onprogress, signal })`, and
 * `setRequestHandler` / `setNotificationHandler` keyed by method name. Each suite passes an adapter that connects
 * its client to the fixture server (spec/interop/fixture.ts) over real HTTP on 127.0.0.1 and presents it so.
 */
import { z } from 'zod';
import { AUTH, PROTOCOL_VERSIONS, rawPing, sleep, startFixture, text, waitFor, within, type Exchange, type Fixture } from './fixture.js';

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  onprogress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

type Params = any;

/** What the scenarios use of a client: the calls both SDK versions share, in the v2 client's shape. */
export interface InteropClient {
  getServerVersion(): unknown;
  getInstructions(): string | undefined;
  getServerCapabilities(): unknown;
  ping(): Promise<unknown>;
  listTools(): Promise<{ tools: Array<{ name: string; description?: string; inputSchema: unknown; outputSchema?: unknown }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: CallOptions): Promise<{ content?: unknown; isError?: boolean; structuredContent?: unknown }>;
  setLoggingLevel(level: 'debug' | 'info' | 'notice' | 'warning' | 'error'): Promise<unknown>;
  listResources(): Promise<{ resources: unknown[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  listPrompts(): Promise<{ prompts: unknown[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ description?: string; messages: Array<{ role: string; content: unknown }> }>;
  complete(params: Params): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  subscribeResource(params: { uri: string }): Promise<unknown>;
  unsubscribeResource(params: { uri: string }): Promise<unknown>;
  setNotificationHandler(method: 'notifications/message' | 'notifications/tools/list_changed' | 'notifications/resources/updated', handler: (notification: { params: Params }) => void): void;
  setRequestHandler(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', handler: (request: { params: Params }) => unknown): void;
  close(): Promise<void>;
}

export interface InteropConnection {
  client: InteropClient;
  transport: { readonly sessionId?: string; readonly protocolVersion?: string; terminateSession(): Promise<void> };
  /** Every HTTP exchange the client's transport made. */
  exchanges: Exchange[];
}

export interface ClientAdapter<C extends InteropConnection = InteropConnection> {
  /** Names the describe blocks, e.g. 'sdk v1 client'. */
  name: string;
  /** How the client is made to use one protocol version, for the block name: 'proposing' or 'supporting only'. */
  versionChoice: string;
  /** Connects a client to the fixture, declaring `capabilities`, and offering only `version` when given. */
  connect(fixture: Fixture, options: { capabilities?: Record<string, unknown>; version?: string }): Promise<C>;
  /** The protocol version the client says it negotiated. */
  negotiatedVersion(connection: C): string | undefined;
  /** The class of the errors the client throws for JSON-RPC error responses. */
  ProtocolError: abstract new (...args: never[]) => Error;
}

export const FULL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: { listChanged: true } };

/**
 * The fixture server of the current test and the clients connected to it, all closed in an `afterEach` of the
 * calling scope: `startWith` serves a fresh fixture, `track` registers a client to close.
 */
export function fixtureLifecycle() {
  const state: { fixture: Fixture | undefined } = { fixture: undefined };
  const open: Array<{ client: { close(): Promise<void> } }> = [];
  afterEach(async () => {
    for (const { client } of open.splice(0)) await client.close().catch(() => undefined);
    await state.fixture?.close();
    state.fixture = undefined;
  });
  return {
    /** The fixture of the running test. */
    get fixture(): Fixture {
      if (!state.fixture) throw new Error('no fixture: call startWith() in a beforeEach');
      return state.fixture;
    },
    async startWith(options: Parameters<typeof startFixture>[0] = {}): Promise<void> {
      state.fixture = await startFixture(options);
    },
    track<T extends { client: { close(): Promise<void> } }>(connected: T): T {
      open.push(connected);
      return connected;
    },
  };
}

/** Registers every shared scenario for `adapter`'s client. */
export function describeInteropScenarios<C extends InteropConnection>(adapter: ClientAdapter<C>): void {
  const lifecycle = fixtureLifecycle();
  const startWith = lifecycle.startWith;
  const connect = async (options: { capabilities?: Record<string, unknown>; version?: string } = {}): Promise<C> =>
    lifecycle.track(await adapter.connect(lifecycle.fixture, options));

  describe(adapter.name, () => {
    beforeEach(() => startWith());

    test('connects: initialize negotiates the latest version and reports server info, capabilities and instructions', async () => {
      const connected = await connect();
      const { client, transport, exchanges } = connected;
      expect(adapter.negotiatedVersion(connected)).toBe('2025-11-25');
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(transport.sessionId).toMatch(/\S+/);
      expect(client.getServerVersion()).toEqual({ name: 'interop-fixture', version: '1.2.3' });
      expect(client.getInstructions()).toBe('Interop test server');
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: {}, prompts: { listChanged: true }, logging: {}, completions: {} });
      await expect(client.ping()).resolves.toEqual({});
      await waitFor(() => exchanges.some((exchange) => exchange.method === 'GET'), 'the client to open its GET stream');
      const sse = expect.stringMatching(/^text\/event-stream/);
      expect(exchanges.find((exchange) => exchange.rpc === 'initialize')).toMatchObject({ method: 'POST', status: 200, contentType: sse });
      expect(exchanges.find((exchange) => exchange.rpc === 'notifications/initialized')).toMatchObject({ method: 'POST', status: 202 });
      expect(exchanges.find((exchange) => exchange.rpc === 'ping')).toMatchObject({ method: 'POST', status: 200, contentType: sse });
      expect(exchanges.find((exchange) => exchange.method === 'GET')).toMatchObject({ status: 200, contentType: sse });
    });

    test('lists tools with their JSON Schemas and calls sum', async () => {
      const { client } = await connect();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['ask-name', 'haiku', 'log', 'progress', 'roots', 'stats', 'sum', 'wait', 'whoami']);
      const sum = tools.find((tool) => tool.name === 'sum')!;
      expect(sum.description).toBe('Adds two numbers');
      expect(sum.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
      const result = await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    });

    test('a call with invalid arguments gets an isError result naming the problem', async () => {
      const { client } = await connect();
      const result = await client.callTool({ name: 'sum', arguments: { a: 'two', b: 3 } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/Invalid arguments for tool sum/);
      expect(text(result)).toMatch(/\ba\b/);
      const missing = await client.callTool({ name: 'sum', arguments: { a: 1 } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/\bb\b/);
    });

    test('a tool with an outputSchema returns structuredContent the client validates', async () => {
      const { client } = await connect();
      const { tools } = await client.listTools(); // the client validates against the cached listing
      expect(tools.find((tool) => tool.name === 'stats')!.outputSchema).toMatchObject({
        type: 'object',
        properties: { count: { type: 'number' }, total: { type: 'number' }, mean: { type: 'number' } },
      });
      const result = await client.callTool({ name: 'stats', arguments: { values: [1, 2, 3, 6] } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ count: 4, total: 12, mean: 3 });
      expect(JSON.parse(text(result))).toEqual({ count: 4, total: 12, mean: 3 });
    });

    test('receives progress notifications for a call made with onprogress', async () => {
      const { client } = await connect();
      const updates: Progress[] = [];
      const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (progress) => updates.push(progress) });
      expect(text(result)).toBe('did 3 steps');
      await waitFor(() => updates.length >= 3, 'three progress notifications');
      expect(updates).toEqual([
        { progress: 1, total: 3, message: 'step 1 of 3' },
        { progress: 2, total: 3, message: 'step 2 of 3' },
        { progress: 3, total: 3, message: 'step 3 of 3' },
      ]);
    });

    test('receives log messages at or above the level set with setLoggingLevel', async () => {
      const { client } = await connect();
      const messages: Array<{ level: string; logger?: string; data: unknown }> = [];
      client.setNotificationHandler('notifications/message', (notification) => {
        messages.push(notification.params);
      });
      await client.setLoggingLevel('info');
      const result = await client.callTool({ name: 'log', arguments: {} });
      expect(text(result)).toBe('logged');
      await waitFor(() => messages.length >= 2, 'two log messages');
      await new Promise((resolve) => setTimeout(resolve, 50)); // a stray debug message would have arrived by now
      expect(messages).toEqual([
        { level: 'info', logger: 'interop', data: { note: 'an info message' } },
        { level: 'error', data: 'an error message' },
      ]);
    });

    test('answers an elicitation request the tool awaits', async () => {
      const { client } = await connect({ capabilities: FULL_CAPABILITIES });
      const asked: unknown[] = [];
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      const result = await client.callTool({ name: 'ask-name', arguments: {} });
      expect(text(result)).toBe('accept:Ada');
      expect(asked).toEqual([
        expect.objectContaining({ message: 'What is your name?', requestedSchema: expect.objectContaining({ required: ['name'] }) }),
      ]);
    });

    test('a declined elicitation reaches the tool too', async () => {
      const { client } = await connect({ capabilities: FULL_CAPABILITIES });
      client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }));
      const result = await client.callTool({ name: 'ask-name', arguments: {} });
      expect(text(result)).toBe('decline:');
    });

    test('answers a sampling request', async () => {
      const { client } = await connect({ capabilities: FULL_CAPABILITIES });
      const prompts: string[] = [];
      client.setRequestHandler('sampling/createMessage', (request) => {
        const first = request.params.messages[0].content;
        const content = (Array.isArray(first) ? first[0] : first) as { type: string; text?: string };
        prompts.push(`${request.params.systemPrompt}|${request.params.maxTokens}|${content.text}`);
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Autumn moonlight' } };
      });
      const result = await client.callTool({ name: 'haiku', arguments: { topic: 'the moon' } });
      expect(text(result)).toBe('test-model|assistant|Autumn moonlight');
      expect(prompts).toEqual(['You are a poet|50|Write a haiku about the moon']);
    });

    test('answers a roots/list request', async () => {
      const { client } = await connect({ capabilities: FULL_CAPABILITIES });
      client.setRequestHandler('roots/list', () => ({
        roots: [
          { uri: 'file:///home/user/project', name: 'project' },
          { uri: 'file:///tmp', name: 'tmp' },
        ],
      }));
      const result = await client.callTool({ name: 'roots', arguments: {} });
      expect(text(result)).toBe('project=file:///home/user/project,tmp=file:///tmp');
    });

    test('a tool needing a capability the client did not declare fails with a clear error', async () => {
      const { client } = await connect(); // no elicitation capability
      const outcome = await client.callTool({ name: 'ask-name', arguments: {} }).then(
        (result) => ({ result }),
        (error: Error) => ({ error }),
      );
      expect('error' in outcome ? outcome.error.message : text(outcome.result)).toMatch(/elicitation/);
    });

    test('lists and reads resources: static and from a template', async () => {
      const { client } = await connect();
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        { uri: 'file:///project/README.md', name: 'readme', title: 'Read me', description: 'The project read-me', mimeType: 'text/markdown' },
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([{ uriTemplate: 'greeting://{name}', name: 'greeting', description: 'A greeting for anyone', mimeType: 'text/plain' }]);

      const readme = await client.readResource({ uri: 'file:///project/README.md' });
      expect(readme.contents).toEqual([{ uri: 'file:///project/README.md', mimeType: 'text/markdown', text: '# Interop\nHello from a static resource.' }]);
      const greeting = await client.readResource({ uri: 'greeting://world' });
      expect(greeting.contents).toEqual([{ uri: 'greeting://world', mimeType: 'text/plain', text: 'Hello, world!' }]);

      await expect(client.readResource({ uri: 'nothing://here' })).rejects.toThrow(/Resource not found/);
    });

    test('lists prompts and gets one with arguments', async () => {
      const { client } = await connect();
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        {
          name: 'review',
          title: 'Code review',
          description: 'Reviews code',
          arguments: [
            { name: 'code', description: 'The code to review', required: true },
            { name: 'language', description: 'Its language', required: false },
          ],
        },
      ]);
      const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'print(1)', language: 'python' } });
      expect(prompt).toEqual({
        description: 'A review request',
        messages: [{ role: 'user', content: { type: 'text', text: 'Please review this python:\nprint(1)' } }],
      });
      const withoutOptional = await client.getPrompt({ name: 'review', arguments: { code: 'x' } });
      expect(withoutOptional.messages[0].content).toEqual({ type: 'text', text: 'Please review this code:\nx' });
      await expect(client.getPrompt({ name: 'review', arguments: {} })).rejects.toThrow(/code/);
      const error = await client.getPrompt({ name: 'review', arguments: {} }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(adapter.ProtocolError);
      expect((error as { code: number }).code).toBe(-32602);
    });

    test('completes a prompt argument and a template variable (completion/complete)', async () => {
      const { client } = await connect();
      const forPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 'p' } });
      expect(forPrompt.completion).toEqual({ values: ['python', 'perl'], total: 2, hasMore: false });
      const forTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'greeting://{name}' }, argument: { name: 'name', value: 'al' } });
      expect(forTemplate.completion.values).toEqual(['alice', 'albert']);
    });

    test('receives notifications/tools/list_changed on its GET stream when a tool is added at runtime', async () => {
      const { client } = await connect();
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++;
      });
      await waitFor(() => lifecycle.fixture.gets() > 0, 'the client to open its GET stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
      lifecycle.fixture.server.tool('late', { description: 'Added at runtime', inputSchema: { x: z.string() } }, ({ x }) => ({ content: [{ type: 'text', text: x.toUpperCase() }] }));
      await waitFor(() => changed > 0, 'notifications/tools/list_changed');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('late');
      const result = await client.callTool({ name: 'late', arguments: { x: 'hi' } });
      expect(text(result)).toBe('HI');
    });

    test('cancellation: aborting the call fires the handler ctx.signal, and the session carries on', async () => {
      const { client } = await connect();
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
      const settled = call.then(
        () => 'resolved',
        (error: Error) => error,
      );
      await within(lifecycle.fixture.waitStarted.promise, 5000, 'the wait tool to start');
      controller.abort('the user gave up');
      const outcome = await settled;
      expect(outcome).toBeInstanceOf(Error);
      const reason = await within(lifecycle.fixture.waitAborted.promise, 5000, 'the server handler ctx.signal to fire');
      expect(String(reason)).toMatch(/the user gave up/);
      const after = await client.callTool({ name: 'sum', arguments: { a: 1, b: 1 } });
      expect(text(after)).toBe('2');
    });

    test('subscribes to a resource and receives notifications/resources/updated for it only', async () => {
      const { client } = await connect();
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        updated.push(notification.params.uri);
      });
      await waitFor(() => lifecycle.fixture.gets() > 0, 'the client to open its GET stream');
      await sleep(50);
      await client.subscribeResource({ uri: 'file:///project/README.md' });
      lifecycle.fixture.server.notifyResourceUpdated('greeting://nobody');
      lifecycle.fixture.server.notifyResourceUpdated('file:///project/README.md');
      await waitFor(() => updated.length >= 1, 'notifications/resources/updated');
      await sleep(50);
      expect(updated).toEqual(['file:///project/README.md']);
      await client.unsubscribeResource({ uri: 'file:///project/README.md' });
      lifecycle.fixture.server.notifyResourceUpdated('file:///project/README.md');
      await sleep(100);
      expect(updated).toEqual(['file:///project/README.md']);
    });

    test('concurrent calls on one session each get their own answer', async () => {
      const { client } = await connect();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.callTool({ name: 'sum', arguments: { a: i, b: 100 } })));
      expect(results.map(text)).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 100)));
    });

    test('two sessions each receive list_changed on their own GET stream', async () => {
      const first = await connect();
      const second = await connect();
      expect(first.transport.sessionId).not.toBe(second.transport.sessionId);
      const counts = [0, 0];
      for (const [index, { client }] of [first, second].entries()) {
        client.setNotificationHandler('notifications/tools/list_changed', () => {
          counts[index]++;
        });
      }
      await waitFor(() => lifecycle.fixture.gets() >= 2, 'both clients to open their GET streams');
      await sleep(50);
      lifecycle.fixture.server.tool('late', { description: 'Added at runtime' }, () => ({ content: [] }));
      await waitFor(() => counts[0] > 0 && counts[1] > 0, 'list_changed on both sessions');
      await sleep(50);
      expect(counts).toEqual([1, 1]);
    });

    test('close: terminateSession sends DELETE, after which the session id answers 404', async () => {
      const { client, transport } = await connect();
      const sessionId = transport.sessionId!;
      expect(await rawPing(lifecycle.fixture.url, sessionId, '2025-11-25')).toMatchObject({ status: 200 });
      await transport.terminateSession();
      expect(transport.sessionId).toBeUndefined();
      const after = await rawPing(lifecycle.fixture.url, sessionId, '2025-11-25');
      expect(after.status).toBe(404);
      expect(JSON.parse(after.body)).toMatchObject({ jsonrpc: '2.0', id: 'raw-ping', error: { code: -32001 } });
      await client.close();
    });
  });

  describe(`${adapter.name} against enableJsonResponse: true`, () => {
    beforeEach(() => startWith({ jsonResponse: true }));

    test('initialize, list and call tools, invalid arguments, close', async () => {
      const { client, transport, exchanges } = await connect();
      expect(client.getServerVersion()).toEqual({ name: 'interop-fixture', version: '1.2.3' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('sum');
      expect(text(await client.callTool({ name: 'sum', arguments: { a: 4, b: 5 } }))).toBe('9');
      const invalid = await client.callTool({ name: 'sum', arguments: { a: 4 } });
      expect(invalid.isError).toBe(true);
      const stats = await client.callTool({ name: 'stats', arguments: { values: [2, 4] } });
      expect(stats.structuredContent).toEqual({ count: 2, total: 6, mean: 3 });
      const answers = exchanges.filter((exchange) => exchange.method === 'POST' && exchange.rpc !== undefined && !exchange.rpc.startsWith('notifications/'));
      expect(answers.map((exchange) => exchange.rpc)).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call', 'tools/call']);
      for (const exchange of answers) expect(exchange).toMatchObject({ status: 200, contentType: expect.stringMatching(/^application\/json/) });
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      expect((await rawPing(lifecycle.fixture.url, sessionId, '2025-11-25')).status).toBe(404);
    });

    test('progress and elicitation still reach the client (the response falls back to SSE)', async () => {
      const { client, exchanges } = await connect({ capabilities: FULL_CAPABILITIES });
      const updates: Progress[] = [];
      const result = await client.callTool({ name: 'progress', arguments: { steps: 2 } }, { onprogress: (progress) => updates.push(progress) });
      expect(text(result)).toBe('did 2 steps');
      await waitFor(() => updates.length >= 2, 'progress notifications');
      client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Grace' } }));
      expect(text(await client.callTool({ name: 'ask-name', arguments: {} }))).toBe('accept:Grace');
      const calls = exchanges.filter((exchange) => exchange.rpc === 'tools/call');
      expect(calls).toEqual([
        expect.objectContaining({ status: 200, contentType: expect.stringMatching(/^text\/event-stream/) }),
        expect.objectContaining({ status: 200, contentType: expect.stringMatching(/^text\/event-stream/) }),
      ]);
    });
  });

  describe(`${adapter.name} against legacySessions: false (2025-era requests served without sessions)`, () => {
    beforeEach(() => startWith({ legacySessions: false }));

    test('initializes without a session id and calls tools with progress; the GET stream is refused with 405', async () => {
      const { client, transport, exchanges } = await connect();
      expect(transport.sessionId).toBeUndefined();
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(client.getServerVersion()).toEqual({ name: 'interop-fixture', version: '1.2.3' });
      await client.listTools();
      expect(text(await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } }))).toBe('5');
      expect((await client.callTool({ name: 'stats', arguments: { values: [2, 4] } })).structuredContent).toEqual({ count: 2, total: 6, mean: 3 });
      const updates: Progress[] = [];
      expect(text(await client.callTool({ name: 'progress', arguments: { steps: 2 } }, { onprogress: (progress) => updates.push(progress) }))).toBe('did 2 steps');
      await waitFor(() => updates.length >= 2, 'progress notifications');
      await waitFor(() => exchanges.some((exchange) => exchange.method === 'GET'), 'the client to try its GET stream');
      expect(exchanges.find((exchange) => exchange.method === 'GET')).toMatchObject({ status: 405 });
      await transport.terminateSession(); // no session id: nothing to delete
      expect(exchanges.some((exchange) => exchange.method === 'DELETE')).toBe(false);
    });

    // 2025-era clients served without sessions get JSON-RPC errors in a 200 reply, as with sessions.
    test('a JSON-RPC error reaches the client as a JSON-RPC error, as it does with sessions', async () => {
      const { client } = await connect();
      const error = await client.getPrompt({ name: 'review', arguments: {} }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(adapter.ProtocolError);
      expect((error as { code: number }).code).toBe(-32602);
    });
  });

  describe(`${adapter.name} with app-level auth middleware`, () => {
    beforeEach(() => startWith({ auth: true }));

    test('a tool sees req.auth as ctx.authInfo', async () => {
      const { client } = await connect();
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse(text(result))).toEqual({ token: AUTH.token, clientId: AUTH.clientId, scopes: AUTH.scopes });
      await client.callTool({ name: 'sum', arguments: { a: 1, b: 2 } });
      expect(lifecycle.fixture.seenAuth).toEqual([AUTH, AUTH]);
    });
  });

  describe.each(PROTOCOL_VERSIONS)(`${adapter.name} ${adapter.versionChoice} %s`, (version) => {
    beforeEach(() => startWith());

    test('initializes at that version and calls a tool', async () => {
      const connected = await connect({ version });
      const { client, transport } = connected;
      expect(adapter.negotiatedVersion(connected)).toBe(version);
      expect(transport.protocolVersion).toBe(version);
      const result = await client.callTool({ name: 'sum', arguments: { a: 20, b: 22 } });
      expect(text(result)).toBe('42');
      const updates: Progress[] = [];
      await client.callTool({ name: 'progress', arguments: { steps: 2 } }, { onprogress: (progress) => updates.push(progress) });
      await waitFor(() => updates.length >= 2, 'progress notifications');
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      expect((await rawPing(lifecycle.fixture.url, sessionId, version)).status).toBe(404);
    });
  });
}
