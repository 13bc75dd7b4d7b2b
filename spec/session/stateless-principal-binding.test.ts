/**
 * 2026-07-28 requests bound to their principal: `requestState` bound to the caller and the arguments, and
 * persisted stateless streams resumable only by the principal that made the request, never naming a session's
 * stream. An app-level middleware sets `req.auth` from the `X-Test-User` header.
 */
import type express from 'express';
import { z } from 'zod';
import { InMemoryEventStore, LocalSessionManager, McpServer, NeverSessionManager } from '../../lib/index.js';
import { callTool, envelope, MODERN, rawRequest, resultOf, textOf, type Reply } from '../helpers/modern.js';
import { RawClient, toolCall } from '../helpers/raw-client.js';
import { serve, type Served } from '../helpers/serve.js';
import { eventIds, parseSse, postWithin, sleep } from './fixtures.js';

/** `req.auth` from `X-Test-User` (no header: anonymous). */
function auth(app: express.Express): void {
  app.use((req, _res, next) => {
    const user = req.header('x-test-user');
    if (user) (req as unknown as { auth: unknown }).auth = { token: `token-${user}`, clientId: user, scopes: [] };
    next();
  });
}

/** A session client whose every request carries `X-Test-User` (when given). */
class UserClient extends RawClient {
  constructor(
    url: string,
    private readonly user: string | undefined,
  ) {
    super(url);
  }

  override headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers = super.headers(extra);
    if (this.user) headers['X-Test-User'] = this.user;
    return headers;
  }
}

const as = (user: string | undefined): Record<string, string | undefined> => ({ 'X-Test-User': user });

describe('requestState is bound to the caller and the arguments', () => {
  let served: Served;
  beforeAll(async () => {
    const server = new McpServer({ name: 'pay', version: '1.0.0' });
    server.tool('pay', { description: 'Pays after a confirmation', inputSchema: { amount: z.number(), memo: z.string() } }, async ({ amount, memo }, ctx) => {
      const answer = await ctx.elicit({ message: `Pay ${amount}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'confirm' });
      return { content: [{ type: 'text', text: `paid ${amount} for ${memo} (${answer.action}) by ${ctx.authInfo?.clientId ?? 'anonymous'}` }] };
    });
    served = await serve({ server, sseKeepAlive: 0, requestStateSecret: 'principal-spec-secret-of-enough-bytes' }, auth);
  });
  afterAll(() => served.close());

  const ELICIT = envelope({}, { elicitation: {} });
  const CONFIRMED = { confirm: { action: 'accept', content: { ok: true } } };

  async function firstRound(user: string, args: Record<string, unknown>): Promise<string> {
    const reply = await callTool(served.port, 'pay', args, { meta: ELICIT, headers: as(user) });
    expect(reply.status).toBe(200);
    const result = resultOf(reply);
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests)).toEqual(['confirm']);
    return result.requestState;
  }

  function retry(user: string | undefined, args: Record<string, unknown>, requestState: string): Promise<Reply> {
    return callTool(served.port, 'pay', args, { meta: ELICIT, headers: as(user), params: { requestState, inputResponses: CONFIRMED } });
  }

  function expectRefused(reply: Reply): void {
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32602, message: expect.stringContaining('requestState') } });
    expect(reply.json.result).toBeUndefined();
  }

  test('a state minted for alice is refused when bob (or an anonymous caller) sends it, even with the same arguments', async () => {
    const state = await firstRound('alice', { amount: 1, memo: 'coffee' });
    expectRefused(await retry('bob', { amount: 1, memo: 'coffee' }, state));
    expectRefused(await retry(undefined, { amount: 1, memo: 'coffee' }, state));
  });

  test('a state minted for { amount: 1 } is refused for { amount: 1000000 }', async () => {
    const state = await firstRound('alice', { amount: 1, memo: 'coffee' });
    expectRefused(await retry('alice', { amount: 1000000, memo: 'coffee' }, state));
    expectRefused(await retry('alice', { amount: 1, memo: 'a car' }, state));
  });

  test('the same caller with the same arguments, keys in another order, is accepted', async () => {
    const state = await firstRound('alice', { amount: 1, memo: 'coffee' });
    const reply = await retry('alice', { memo: 'coffee', amount: 1 }, state);
    expect(reply.status).toBe(200);
    const result = resultOf(reply);
    expect(result.resultType).toBe('complete');
    expect(textOf(result)).toBe('paid 1 for coffee (accept) by alice');
  });

  test('bob\'s own state works for bob', async () => {
    const state = await firstRound('bob', { amount: 2, memo: 'tea' });
    const reply = await retry('bob', { amount: 2, memo: 'tea' }, state);
    expect(textOf(resultOf(reply))).toBe('paid 2 for tea (accept) by bob');
  });
});

describe('persisted stateless streams are resumable only by their principal', () => {
  let eventStore: InMemoryEventStore;
  let never: Served;
  let local: Served;
  beforeAll(async () => {
    eventStore = new InMemoryEventStore();
    const server = new McpServer({ name: 'persisted', version: '1.0.0' });
    server.tool('steps', { description: 'Two progress steps, then an answer' }, async (_args, ctx) => {
      for (const step of [1, 2]) {
        ctx.progress(step, 2, `step ${step}`);
        await sleep(10);
      }
      return { content: [{ type: 'text', text: `steps done for ${ctx.authInfo?.clientId ?? 'anonymous'}` }] };
    });
    server.tool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    never = await serve({ server, sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) }, auth);
    const sessionServer = new McpServer({ name: 'sessions', version: '1.0.0' });
    sessionServer.tool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    local = await serve({ server: sessionServer, sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore }) }, auth);
  });
  afterAll(() => Promise.all([never.close(), local.close()]));

  function resume(lastEventId: string, user: string | undefined): Promise<Reply> {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': lastEventId };
    if (user) headers['X-Test-User'] = user;
    return rawRequest(never.port, 'GET', headers, undefined, 3000);
  }

  /** Alice's call: a persisted SSE reply whose first event is the priming event. */
  async function aliceCall(): Promise<{ reply: Reply; primingId: string }> {
    const reply = await callTool(never.port, 'steps', {}, { meta: envelope({ progressToken: 'p1' }), headers: as('alice') });
    expect(reply.status).toBe(200);
    expect(reply.sse).toBe(true);
    expect(reply.messages.map((message) => message.method ?? `response`)).toEqual(['notifications/progress', 'notifications/progress', 'response']);
    const primingId = parseSse(reply.text)[0].id!;
    expect(primingId).toEqual(expect.any(String));
    return { reply, primingId };
  }

  test('bob resuming alice\'s event id gets an empty 200 stream', async () => {
    const { primingId } = await aliceCall();
    const byBob = await resume(primingId, 'bob');
    expect(byBob.status).toBe(200);
    expect(byBob.messages).toEqual([]);
    expect(byBob.text).not.toContain('steps done');
  });

  test('alice resuming her own event id gets the rest of her stream', async () => {
    const { primingId } = await aliceCall();
    const byAlice = await resume(primingId, 'alice');
    expect(byAlice.status).toBe(200);
    expect(byAlice.messages.map((message) => message.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
    expect(byAlice.final).toMatchObject({ result: { content: [{ type: 'text', text: 'steps done for alice' }] } });
  });

  test('an anonymous caller resuming alice\'s event id gets an empty 200 stream', async () => {
    const { primingId } = await aliceCall();
    const anonymous = await resume(primingId, undefined);
    expect(anonymous.status).toBe(200);
    expect(anonymous.messages).toEqual([]);
    expect(anonymous.text).not.toContain('steps done');
  });

  test('an anonymous caller\'s stream is not resumable by an authenticated one', async () => {
    const reply = await callTool(never.port, 'steps', {}, { meta: envelope({ progressToken: 'p2' }) });
    const primingId = parseSse(reply.text)[0].id!;
    expect((await resume(primingId, 'alice')).messages).toEqual([]);
    expect((await resume(primingId, undefined)).messages.map((message) => message.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
  });

  test('a Last-Event-ID naming a session stream of a LocalSessionManager sharing the store yields nothing', async () => {
    for (const user of [undefined, 'alice']) {
      const client = new UserClient(local.url, user);
      await client.initialize();
      const call = await postWithin(client, toolCall(2, 'echo', { text: `session secret of ${user ?? 'anonymous'}` }));
      const ids = eventIds(call.body);
      expect(ids).toHaveLength(2);
      // `<sessionId>/<key>#<n>`, minted by the shared store.
      for (const id of ids) expect(id).toMatch(new RegExp(`^${client.sessionId}/.+#\\d+$`));
      for (const caller of [undefined, 'alice', 'bob']) {
        const replay = await resume(ids[0], caller);
        expect({ user, caller, status: replay.status, messages: replay.messages }).toEqual({ user, caller, status: 200, messages: [] });
        expect(replay.text).not.toContain('session secret');
      }
    }
  });
});
