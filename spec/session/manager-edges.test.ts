/** Edges of LocalSessionManager and the middleware around it: limits, store refresh, error reporting. */
import { InMemorySessionStore, LocalSessionManager, McpServer, type SessionState } from '../../lib/index.js';
import { advanceClock, useFakeClock } from '../helpers/fake-clock.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { RawClient, toolCall } from '../helpers/raw-client.js';
import { sseMessages } from '../helpers/sse.js';

const track = closeAfterEach();
afterEach(() => void jest.useRealTimers()); // also when a fake-clock test fails midway

function server(): McpServer {
  const s = new McpServer({ name: 'edges', version: '1.0.0' });
  s.tool('boom', { description: 'Throws a low-level error from a raw handler' }, () => ({ content: [] }));
  s.setRequestHandler('custom/explode', () => {
    throw new Error('secret database password in this message');
  });
  s.tool('confirm_first', { description: 'Asks for confirmation with ctx.inputRequired' }, async (_args, ctx) => {
    if (ctx.requestState === undefined) {
      ctx.inputRequired({ ok: { method: 'elicitation/create', params: { message: 'OK?', requestedSchema: { type: 'object', properties: {} } } } }, 'asked');
    }
    const answer = await ctx.elicit({ message: 'OK?', requestedSchema: { type: 'object', properties: {} } }, { key: 'ok' });
    return { content: [{ type: 'text', text: `answer ${answer.action}, state ${String(ctx.requestState)}` }] };
  });
  return s;
}

test('a restore that would exceed maxSessions answers 503 with Retry-After, like initialize', async () => {
  const sessionStore = new InMemorySessionStore();
  const a = track(await serve({ server: server(), sessionManager: new LocalSessionManager({ sessionStore }) }));
  const b = track(await serve({ server: server(), sessionManager: new LocalSessionManager({ sessionStore, maxSessions: 1 }) }));
  const first = new RawClient(a.url);
  const second = new RawClient(a.url);
  await first.initialize();
  await second.initialize();
  const onB = (client: RawClient) => fetch(b.url, { method: 'POST', headers: client.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
  expect((await onB(first)).status).toBe(200);
  const refused = await onB(second);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('30');
  expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining('maxSessions') } });
});

test('a stateless handler exception answers -32603 naming the method and goes to onError', async () => {
  const errors: unknown[] = [];
  const served = track(await serve({ server: server(), onError: (error) => errors.push(error) }));
  const reply = await fetch(served.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'custom/explode',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'custom/explode',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  const body = await reply.json();
  expect(body).toMatchObject({ id: 1, error: { code: -32603, message: expect.stringContaining('custom/explode') } });
  expect(errors).toHaveLength(1);
  expect((errors[0] as Error).message).toContain('secret database password');
});

test('the state of a session in use is written to the store again after sessionStoreRefreshInterval', async () => {
  const writes: string[] = [];
  const inner = new InMemorySessionStore();
  const sessionStore = {
    load: (id: string) => inner.load(id),
    store: (id: string, state: SessionState) => {
      writes.push(id);
      return inner.store(id, state);
    },
    delete: (id: string) => inner.delete(id),
  };
  useFakeClock(); // the refresh runs in the idle sweep: on the fake clock
  const served = track(await serve({ server: server(), sessionManager: new LocalSessionManager({ sessionStore, sessionStoreRefreshInterval: 60, sessionIdleTimeout: 10_000, completedStreamTtl: 200 }) }));
  const client = new RawClient(served.url);
  await client.initialize();
  expect(writes).toHaveLength(1);
  for (let round = 0; round < 4; round++) {
    await advanceClock(50);
    await client.call({ jsonrpc: '2.0', id: 10 + round, method: 'ping' });
  }
  await advanceClock(120);
  expect(writes.length).toBeGreaterThanOrEqual(2);
  const quiet = writes.length;
  await advanceClock(200); // idle: no activity, no rewrite
  expect(writes.length).toBe(quiet);
  await served.close(); // before real timers return: the manager's sweep interval is a fake one
  jest.useRealTimers();
});

test('ctx.inputRequired inside a session asks the client itself, and fails cleanly without the capability', async () => {
  const served = track(await serve({ server: server(), sseKeepAlive: 0 }));
  const without = new RawClient(served.url);
  await without.initialize({});
  const refused = await without.call(toolCall(2, 'confirm_first'));
  expect(sseMessages(refused.body).at(-1)).toMatchObject({ id: 2, error: { message: expect.stringContaining('"elicitation" capability') } });

  const capable = new RawClient(served.url);
  await capable.initialize({ elicitation: {} });
  const post = await capable.post(toolCall(3, 'confirm_first'));
  const reader = post.body!.getReader();
  let text = '';
  while (!text.includes('elicitation/create')) text += new TextDecoder().decode((await reader.read()).value);
  const request = sseMessages(text).find((message) => message.method === 'elicitation/create')!;
  const answered = await capable.post({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: {} } });
  expect(answered.status).toBe(202);
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  expect(sseMessages(text).at(-1)).toMatchObject({ id: 3, result: { content: [{ text: 'answer accept, state asked' }] } });
});

test('completions are advertised only when something can complete', () => {
  const bare = new McpServer({ name: 'c', version: '1' });
  bare.prompt('p', { description: 'no completers' }, () => ({ messages: [] }));
  expect(bare.capabilities().completions).toBeUndefined();
  const completing = new McpServer({ name: 'c', version: '1' });
  completing.prompt('p', { description: 'completes', complete: { x: () => ['y'] } }, () => ({ messages: [] }));
  expect(completing.capabilities().completions).toEqual({});
});
