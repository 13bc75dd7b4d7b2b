/** Regression tests for the defects of the second review (deep params, GET failover and shadows, batches, DELETE). */
import { InMemorySessionStore, LocalSessionManager, McpServer } from '../../lib/index.js';
import { serve } from '../helpers/serve.js';
import { RawClient, readUntil, toolCall } from '../helpers/raw-client.js';
import { reviewServer, sameSessionOn, sleep } from './review-helpers.js';
import { parseSse, sseMessages } from '../helpers/sse.js';

const modernHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' };
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

test('deeply nested arguments to a tool that asks for input get -32602, and the process lives on', async () => {
  const served = await serve({ server: reviewServer() });
  // 20 000 levels of nesting in 40 KB (built as text: JSON.stringify itself would overflow the stack).
  const deep = '['.repeat(20_000) + ']'.repeat(20_000);
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"junk":${deep}},"_meta":${JSON.stringify(envelope)}}}`;
  const reply = await fetch(served.url, { method: 'POST', headers: { ...modernHeaders, 'Mcp-Name': 'ask' }, body });
  expect(reply.status).toBe(400);
  expect(await reply.json()).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining('nested') } });
  const after = await fetch(served.url, {
    method: 'POST',
    headers: { ...modernHeaders, 'Mcp-Name': 'echo' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'alive' }, _meta: envelope } }),
  });
  expect(await after.text()).toContain('alive');
  await served.close();
});

test('after a failover, resuming the GET stream on another instance follows that instance live', async () => {
  const sessionStore = new InMemorySessionStore();
  const serverB = reviewServer();
  const a = await serve({ server: reviewServer(), sessionManager: new LocalSessionManager({ sessionStore }), sseKeepAlive: 0 });
  const b = await serve({ server: serverB, sessionManager: new LocalSessionManager({ sessionStore }), sseKeepAlive: 0 });
  const client = new RawClient(a.url);
  await client.initialize();
  const get = await client.get();
  const { text, reader } = await readUntil(get, (read) => parseSse(read).length >= 1);
  const primingId = parseSse(text)[0].id!;
  await reader.cancel();
  const resumed = await sameSessionOn(b.url, client).get({ 'Last-Event-ID': primingId });
  expect(resumed.status).toBe(200);
  const live = readUntil(resumed, (read) => read.includes('notifications/tools/list_changed'));
  await sleep(50);
  serverB.notifyToolsListChanged();
  const received = await live;
  expect(sseMessages(received.text).map((message) => message.method)).toContain('notifications/tools/list_changed');
  await received.reader.cancel();
  await Promise.all([a.close(), b.close()]);
});

test('a GET resume that waited behind a live connection takes over when it leaves, with what it missed', async () => {
  const server = reviewServer();
  const served = await serve({ server, sseKeepAlive: 0 });
  const client = new RawClient(served.url);
  await client.initialize();
  const first = await client.get();
  const opened = await readUntil(first, (read) => parseSse(read).length >= 1);
  const primingId = parseSse(opened.text)[0].id!;
  server.notifyToolsListChanged(); // delivered to the first connection only
  await readUntil(first, (read) => read.includes('list_changed'), 2000).catch(() => undefined);
  const second = await client.get({ 'Last-Event-ID': primingId });
  const waiting = readUntil(second, (read) => sseMessages(read).length >= 2, 3000);
  await sleep(50);
  await opened.reader.cancel(); // the first connection goes away
  await sleep(50);
  server.notifyToolsListChanged();
  const taken = await waiting;
  // The event it missed (sent while it waited) and the later one.
  expect(sseMessages(taken.text).filter((message) => message.method === 'notifications/tools/list_changed')).toHaveLength(2);
  await taken.reader.cancel();
  await served.close();
});

test('a client that leaves a batch waiting on an elicitation does not pin its session', async () => {
  const served = await serve({ server: reviewServer(), sessionManager: new LocalSessionManager({ sessionIdleTimeout: 200 }), sseKeepAlive: 0 });
  const client = new RawClient(served.url, '2025-03-26');
  await client.initialize({ elicitation: {} });
  const batch = await fetch(served.url, {
    method: 'POST',
    headers: client.headers(),
    body: JSON.stringify([toolCall(2, 'ask'), { jsonrpc: '2.0', id: 3, method: 'ping' }]),
  });
  const { reader } = await readUntil(batch, (read) => read.includes('elicitation/create'));
  await reader.cancel();
  await sleep(700);
  const after = await client.post({ jsonrpc: '2.0', id: 4, method: 'ping' });
  expect(after.status).toBe(404);
  await served.close();
});

test('a state change during DELETE neither survives in the store nor lets another instance revive the session', async () => {
  const inner = new InMemorySessionStore();
  const slowStore = {
    load: (id: string) => inner.load(id),
    store: (id: string, state: Parameters<InMemorySessionStore['store']>[1]) => inner.store(id, state),
    delete: async (id: string) => {
      await sleep(50);
      await inner.delete(id);
    },
  };
  const a = await serve({ server: reviewServer(), sessionManager: new LocalSessionManager({ sessionStore: slowStore }) });
  const b = await serve({ server: reviewServer(), sessionManager: new LocalSessionManager({ sessionStore: inner }) });
  const client = new RawClient(a.url);
  await client.initialize();
  const deleting = fetch(a.url, { method: 'DELETE', headers: client.headers() });
  await sleep(15);
  const subscribe = await client.post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'test://static' } });
  expect(subscribe.status).toBe(404);
  expect((await deleting).status).toBe(200);
  await sleep(20);
  expect(inner.size).toBe(0);
  const onB = await sameSessionOn(b.url, client).post({ jsonrpc: '2.0', id: 3, method: 'ping' });
  expect(onB.status).toBe(404);
  await Promise.all([a.close(), b.close()]);
});

test('a server request whose params cannot be serialised fails the call instead of hanging it', async () => {
  const server = new McpServer({ name: 'unser', version: '1.0.0' });
  server.tool('bad_elicit', { description: 'Elicits with a BigInt in its params' }, async (_args, ctx) => {
    await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} }, big: BigInt(1) } as never);
    return { content: [{ type: 'text', text: 'unreachable' }] };
  });
  const errors: unknown[] = [];
  const served = await serve({ server, sessionManager: new LocalSessionManager({ onError: (error) => errors.push(error) }) });
  const client = new RawClient(served.url);
  await client.initialize({ elicitation: {} });
  const call = await client.call(toolCall(2, 'bad_elicit'));
  expect(sseMessages(call.body).at(-1)).toMatchObject({ id: 2, error: { code: -32603, message: expect.stringContaining('cannot be serialised') } });
  expect(errors.length).toBeGreaterThanOrEqual(1);
  await served.close();
});
