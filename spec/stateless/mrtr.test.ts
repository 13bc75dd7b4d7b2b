/**
 * Multi-round-trip requests (SEP-2322, 2026-07-28): a handler's `ctx.elicit/sample/listRoots` ends the request
 * with `input_required` (keyed `inputRequests` + an HMAC-signed `requestState`); the client retries with
 * `inputResponses` (+ the state) and the handler runs again with the answers. The same handler code serves a
 * 2025-era session client with a real `elicitation/create` request on the POST stream.
 */
import { z } from 'zod';
import { openLive } from '../helpers/http-helpers.js';
import { closeAfterEach } from '../helpers/serve.js';
import { ACCEPT_BOTH, callTool, envelope, FULL_CAPABILITIES, modern, rawRequest, resultOf, sleep, startModern, textOf, type ModernHarness, type Reply } from '../helpers/modern.js';

const ELICIT = envelope({}, { elicitation: {} });
const FULL = envelope({}, FULL_CAPABILITIES);
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const samplingAnswer = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });

let h: ModernHarness;
beforeAll(async () => {
  h = await startModern({ requestStateSecret: 'a-shared-secret-of-32-bytes-long!' });
  h.server.prompt('context_prompt', { description: 'Asks for context first' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } },
      { key: 'user_context' },
    );
    return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${String(answer.content?.context)}` } }] };
  });
  // The explicit idiom: end the first round with ctx.inputRequired(requests, state), read ctx.requestState later.
  h.server.tool('confirm_tool', { description: 'Asks for confirmation with its own state' }, async (_args, ctx) => {
    if (ctx.requestState === undefined) ctx.inputRequired({ confirm: { method: 'elicitation/create', params: CONFIRM } }, { round: 1, note: 'mine' });
    const answer = await ctx.elicit(CONFIRM, { key: 'confirm' });
    return { content: [{ type: 'text', text: `state-ok: ${JSON.stringify(ctx.requestState)} ok=${String(answer.content?.ok)}` }] };
  });
  // No key: the channel names the request itself.
  h.server.tool('unkeyed', { description: 'Elicits without a key' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Anything?', requestedSchema: { type: 'object', properties: { x: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `x=${String(answer.content?.x)}` }] };
  });
});

const CONFIRM = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } };
afterAll(() => h.close());

function inputRequired(reply: Reply): { inputRequests: Record<string, { method: string; params: any }>; requestState: string } {
  expect(reply.status).toBe(200);
  const result = resultOf(reply);
  expect(result.resultType).toBe('input_required');
  expect(typeof result.requestState).toBe('string');
  expect(result.requestState.length).toBeGreaterThan(0);
  // input_required is not a list/read result: no cache hints, no content.
  expect(result).not.toHaveProperty('content');
  return result;
}

function complete(reply: Reply): any {
  expect({ status: reply.status, error: reply.json?.error }).toEqual({ status: 200, error: undefined });
  const result = resultOf(reply);
  expect(result.resultType).toBe('complete');
  return result;
}

function retry(name: string, extra: Record<string, unknown>, port = h.port): Promise<Reply> {
  return callTool(port, name, {}, { meta: FULL, params: extra });
}

describe('basic elicitation', () => {
  test('round 1 asks for user_name with elicitation/create and a requestState', async () => {
    const first = inputRequired(await callTool(h.port, 'greet', {}, { meta: ELICIT }));
    expect(Object.keys(first.inputRequests)).toEqual(['user_name']);
    expect(first.inputRequests.user_name).toEqual({
      method: 'elicitation/create',
      params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    });
  });

  test('the retry with inputResponses (and the echoed state, new id) completes', async () => {
    const first = inputRequired(await callTool(h.port, 'greet', {}, { id: 1, meta: ELICIT }));
    const reply = await callTool(h.port, 'greet', {}, { id: 2, meta: ELICIT, params: { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: first.requestState } });
    expect(reply.final.id).toBe(2);
    expect(textOf(complete(reply))).toBe('Hello, Alice!');
  });

  test('the retry needs no requestState (the handler is stateless)', async () => {
    expect(textOf(complete(await retry('greet', { inputResponses: { user_name: accept({ name: 'Bob' }) } })))).toBe('Hello, Bob!');
  });

  test('a decline reaches the handler', async () => {
    expect(textOf(complete(await retry('greet', { inputResponses: { user_name: { action: 'decline' } } })))).toBe('No name (decline)');
  });

  test('unexpected extra answers are ignored', async () => {
    const reply = await retry('greet', {
      inputResponses: { user_name: accept({ name: 'Alice' }), unknown_extra_key: accept({ foo: 'bar' }), another_unexpected: accept({ baz: 123 }) },
    });
    expect(textOf(complete(reply))).toBe('Hello, Alice!');
  });

  test('an answer under the wrong key re-requests user_name', async () => {
    const again = inputRequired(await retry('greet', { inputResponses: { wrong_key: accept({ data: 'wrong' }) } }));
    expect(Object.keys(again.inputRequests)).toEqual(['user_name']);
  });

  test.each([
    ['user_name: 12345', { user_name: 12345 }],
    ['null', null],
    ['user_name: null', { user_name: null }],
    ['user_name without action', { user_name: { content: { name: 'x' } } }],
    ['an array', [accept({ name: 'x' })]],
  ])('a malformed answer (%s) re-requests instead of completing', async (_label, inputResponses) => {
    const reply = await retry('greet', { inputResponses });
    expect(reply.json?.error).toBeUndefined();
    expect(reply.json?.result?.resultType).not.toBe('complete');
    expect(Object.keys(inputRequired(reply).inputRequests)).toEqual(['user_name']);
  });

  test('a prompt can ask for input too', async () => {
    const first = inputRequired(await modern(h.port, { method: 'prompts/get', params: { name: 'context_prompt' }, meta: FULL }));
    expect(first.inputRequests.user_context.method).toBe('elicitation/create');
    const done = complete(
      await modern(h.port, {
        method: 'prompts/get',
        params: { name: 'context_prompt', inputResponses: { user_context: accept({ context: 'test context' }) }, requestState: first.requestState },
        meta: FULL,
      }),
    );
    expect(done.messages[0].content.text).toBe('Prompt with context: test context');
  });
});

describe('explicit ctx.inputRequired with handler state', () => {
  test('round 1 carries the requests; the retry restores ctx.requestState and the keyed answer', async () => {
    const r1 = inputRequired(await retry('confirm_tool', {}));
    expect(r1.inputRequests).toEqual({ confirm: { method: 'elicitation/create', params: CONFIRM } });
    const r2 = await retry('confirm_tool', { inputResponses: { confirm: accept({ ok: true }) }, requestState: r1.requestState });
    expect(textOf(complete(r2))).toBe('state-ok: {"round":1,"note":"mine"} ok=true');
  });

  test('without the state the handler starts over', async () => {
    const again = inputRequired(await retry('confirm_tool', { inputResponses: { confirm: accept({ ok: true }) } }));
    expect(Object.keys(again.inputRequests)).toEqual(['confirm']);
  });

  test('an unkeyed request gets a generated key that the retry can answer', async () => {
    const r1 = inputRequired(await retry('unkeyed', {}));
    const [key] = Object.keys(r1.inputRequests);
    expect(key).toEqual(expect.any(String));
    expect(r1.inputRequests[key].method).toBe('elicitation/create');
    const r2 = await retry('unkeyed', { inputResponses: { [key]: accept({ x: 'y' }) }, requestState: r1.requestState });
    expect(textOf(complete(r2))).toBe('x=y');
  });
});

describe('multi-round', () => {
  test('round 2 gets a new, different state; round 3 completes with only the round-2 answer and state', async () => {
    const r1 = inputRequired(await retry('two_step', {}));
    expect(Object.keys(r1.inputRequests)).toEqual(['step1']);
    expect(r1.inputRequests.step1.params.message).toBe('Step 1: What is your name?');

    const r2 = inputRequired(await retry('two_step', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.requestState }));
    expect(Object.keys(r2.inputRequests)).toEqual(['step2']);
    expect(r2.inputRequests.step2.params.message).toBe('Step 2: What is your favorite color?');
    expect(r2.requestState).not.toBe(r1.requestState);

    const r3 = await retry('two_step', { inputResponses: { step2: accept({ color: 'blue' }) }, requestState: r2.requestState });
    expect(textOf(complete(r3))).toBe('Alice likes blue');
  });

  test('round 3 with the round-1 state lacks the step-1 answer and asks again', async () => {
    const r1 = inputRequired(await retry('two_step', {}));
    await retry('two_step', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.requestState });
    const stale = inputRequired(await retry('two_step', { inputResponses: { step2: accept({ color: 'blue' }) }, requestState: r1.requestState }));
    expect(Object.keys(stale.inputRequests)).toEqual(['step1']);
  });
});

describe('parallel inputs', () => {
  test('elicit + sample + listRoots awaited together come in one round and complete in the next', async () => {
    const r1 = inputRequired(await retry('parallel_inputs', {}));
    expect(Object.keys(r1.inputRequests).sort()).toEqual(['client_roots', 'greeting', 'user_name']);
    expect(r1.inputRequests.user_name.method).toBe('elicitation/create');
    expect(r1.inputRequests.greeting).toEqual({
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
    });
    expect(r1.inputRequests.client_roots).toEqual({ method: 'roots/list', params: {} });

    const r2 = await retry('parallel_inputs', {
      inputResponses: {
        user_name: accept({ name: 'Alice' }),
        greeting: samplingAnswer('Hello there!'),
        client_roots: { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] },
      },
      requestState: r1.requestState,
    });
    expect(textOf(complete(r2))).toBe('Hello there! Alice (1 roots)');
  });

  test('a partial answer asks only for what is missing', async () => {
    const r1 = inputRequired(await retry('parallel_inputs', {}));
    const r2 = inputRequired(await retry('parallel_inputs', { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: r1.requestState }));
    expect(Object.keys(r2.inputRequests).sort()).toEqual(['client_roots', 'greeting']);
    const r3 = await retry('parallel_inputs', {
      inputResponses: { greeting: samplingAnswer('Hi'), client_roots: { roots: [] } },
      requestState: r2.requestState,
    });
    expect(textOf(complete(r3))).toBe('Hi Alice (0 roots)');
  });

  test('without the elicitation capability the tool fails with -32021 instead of asking', async () => {
    const reply = await callTool(h.port, 'parallel_inputs', {}, { id: 'caps', meta: envelope({}, { sampling: {}, roots: {} }) });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ id: 'caps', error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
  });
});

describe('requestState integrity', () => {
  test('a tampered state (…-TAMPERED) is a JSON-RPC -32602 error with the id echoed', async () => {
    const r1 = inputRequired(await retry('greet', {}));
    const reply = await callTool(h.port, 'greet', {}, {
      id: 'tampered',
      meta: FULL,
      params: { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: `${r1.requestState}-TAMPERED` },
    });
    expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 'tampered', error: { code: -32602 } });
    expect(reply.status).toBe(400);
  });

  test('a state whose payload was altered (signature kept) is rejected', async () => {
    const r1 = inputRequired(await retry('two_step', {}));
    const [body, signature] = r1.requestState.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    payload.answers = { step1: accept({ name: 'Mallory' }) };
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
    const reply = await retry('two_step', { inputResponses: { step2: accept({ color: 'red' }) }, requestState: forged });
    expect(reply.json?.error?.code).toBe(-32602);
  });

  test.each([
    ['not a string', 12345],
    ['garbage', 'not-a-state'],
    ['empty', ''],
  ])('a state that is %s is rejected', async (_label, requestState) => {
    const reply = await retry('greet', { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState });
    expect(reply.json?.error?.code).toBe(-32602);
  });

  test('a state minted for another tool is rejected', async () => {
    const greetState = inputRequired(await retry('greet', {})).requestState;
    const reply = await retry('two_step', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: greetState });
    expect(reply.json?.error?.code).toBe(-32602);
  });

  test('a state minted for a tool is rejected by prompts/get', async () => {
    const greetState = inputRequired(await retry('greet', {})).requestState;
    const reply = await modern(h.port, { method: 'prompts/get', params: { name: 'context_prompt', requestState: greetState }, meta: FULL });
    expect(reply.json?.error?.code).toBe(-32602);
  });

  test('an expired state is rejected', async () => {
    const short = await startModern({ requestStateTtlMs: 30 });
    try {
      const r1 = inputRequired(await retry('greet', {}, short.port));
      await sleep(80);
      const reply = await retry('greet', { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: r1.requestState }, short.port);
      expect(reply.json?.error?.code).toBe(-32602);
    } finally {
      await short.close();
    }
  });

  test('a too-short requestStateSecret is refused at start-up', async () => {
    await expect(startModern({ requestStateSecret: 'short' })).rejects.toThrow(/16 bytes/);
  });

  describe('across instances', () => {
    const track = closeAfterEach();
    test.each([
      ['a state signed with another secret is rejected', 'secret-of-instance-A-0123456789', 'secret-of-instance-B-0123456789'],
      ['two instances with no configured secret do not accept each other’s states', undefined, undefined],
    ])('%s', async (_label, secretA, secretB) => {
      const a = track(await startModern(secretA === undefined ? {} : { requestStateSecret: secretA }));
      const b = track(await startModern(secretB === undefined ? {} : { requestStateSecret: secretB }));
      const r1 = inputRequired(await retry('two_step', {}, a.port));
      const reply = await retry('two_step', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.requestState }, b.port);
      expect(reply.json?.error?.code).toBe(-32602);
    });

    test('instances sharing the secret continue each other’s rounds', async () => {
      const secret = Buffer.from('a-cluster-wide-secret-0123456789');
      const a = track(await startModern({ requestStateSecret: secret }));
      const b = track(await startModern({ requestStateSecret: secret }));
      const r1 = inputRequired(await retry('two_step', {}, a.port));
      const r2 = inputRequired(await retry('two_step', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.requestState }, b.port));
      const r3 = await retry('two_step', { inputResponses: { step2: accept({ color: 'green' }) }, requestState: r2.requestState }, a.port);
      expect(textOf(complete(r3))).toBe('Alice likes green');
    });
  });
});

describe('only tools/call, prompts/get and resources/read may return input_required', () => {
  test.each(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'server/discover'])('%s never does', async (method) => {
    const reply = await modern(h.port, { method, meta: FULL, params: { inputResponses: { user_name: accept({ name: 'x' }) } } });
    expect(complete(reply).resultType).toBe('complete');
  });

  test('a custom method whose handler asks for input gets an error, not input_required', async () => {
    const server = h.server;
    server.setRequestHandler('custom/ask', async (_params, ctx) => {
      await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } });
      return {};
    });
    const reply = await modern(h.port, { id: 'custom', method: 'custom/ask', meta: FULL });
    expect(reply.json?.result?.resultType).toBeUndefined();
    expect(reply.json).toMatchObject({ id: 'custom', error: { code: -32600 } });
  });
});

describe('the same tool code in a 2025-era session', () => {
  /** Initializes a session of `version` declaring `capabilities`; returns the headers of a request in it. */
  async function openLegacySession(version: string, capabilities: Record<string, unknown>): Promise<Record<string, string>> {
    const init = await rawRequest(
      h.port,
      'POST',
      { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'legacy', version: '1' } } }),
    );
    const sessionId = init.headers['mcp-session-id'] as string;
    expect(sessionId).toBeTruthy();
    const headers = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': version };
    expect((await rawRequest(h.port, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(202);
    return headers;
  }

  test('ctx.elicit sends elicitation/create on the POST stream and the answer POST completes the call', async () => {
    const headers = await openLegacySession('2025-11-25', { elicitation: {} });

    const live = await openLive(h, { method: 'POST', headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: {} } }, waitForHeaders: false });
    const request = (await live.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as any;
    expect(request.id).toBeDefined();
    expect(request.params).toEqual({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });

    const answer = await rawRequest(h.port, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id: request.id, result: accept({ name: 'Ada' }) }));
    expect(answer.status).toBe(202);
    const response = (await live.waitForMessage((message) => !('method' in message) && message.id === 2)) as any;
    expect(response.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    // 2025-era results are not decorated with 2026 fields.
    expect(response.result.resultType).toBeUndefined();
    expect(live.text()).not.toContain('input_required');
    await live.ended;
  });

  test('ctx.inputRequired inside a session is emulated: the session asks the client, then reruns the handler with the state', async () => {
    const headers = await openLegacySession('2025-11-25', { elicitation: {} });
    const live = await openLive(h, { method: 'POST', headers, body: { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'confirm_tool', arguments: {} } }, waitForHeaders: false });
    const request = (await live.waitForMessage((message) => 'method' in message && message.method === 'elicitation/create')) as any;
    expect(request.params).toEqual(CONFIRM);
    expect((await rawRequest(h.port, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id: request.id, result: accept({ ok: true }) }))).status).toBe(202);
    const response = (await live.waitForMessage((message) => !('method' in message) && message.id === 'c')) as any;
    expect(response.result.content[0].text).toBe('state-ok: {"round":1,"note":"mine"} ok=true');
    // Only one elicitation: the rerun answered the keyed request from the first round's answer.
    expect(live.messages().filter((message) => 'method' in message && message.method === 'elicitation/create')).toHaveLength(1);
  });

  test('a 2025-era session without the elicitation capability gets a -32021 error naming it, from the same code', async () => {
    const headers = await openLegacySession('2025-06-18', {});
    const reply = await rawRequest(h.port, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'greet', arguments: {} } }));
    expect(reply.status).toBe(200);
    const message = reply.messages.find((m) => m.id === 3);
    expect(message).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32021, message: expect.stringMatching(/elicitation/), data: { requiredCapabilities: { elicitation: {} } } },
    });
  });
});

test('zod-typed tools with arguments keep their arguments across rounds', async () => {
  h.server.tool('ask_with_args', { description: 'Uses an argument and an answer', inputSchema: { greeting: z.string() } }, async ({ greeting }, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'n' });
    return { content: [{ type: 'text', text: `${greeting}, ${String(answer.content?.name)}` }] };
  });
  const r1 = inputRequired(await callTool(h.port, 'ask_with_args', { greeting: 'Hi' }, { meta: FULL }));
  const r2 = await callTool(h.port, 'ask_with_args', { greeting: 'Hi' }, { meta: FULL, params: { inputResponses: { n: accept({ name: 'Zoe' }) }, requestState: r1.requestState } });
  expect(textOf(complete(r2))).toBe('Hi, Zoe');
});
