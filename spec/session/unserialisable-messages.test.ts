/**
 * Messages that cannot be hashed or serialised fail cleanly, never hang or crash: deeply nested arguments of a
 * multi-round-trip request, a tool result JSON cannot represent, and a server→client request whose params cannot
 * be serialised.
 */
import { InMemoryEventStore, LocalSessionManager, McpServer, type EventStore } from '../../lib/index.js';
import { RawClient, toolCall } from '../helpers/raw-client.js';
import { closeAfterEach, serve } from '../helpers/serve.js';
import { parseSse, sseMessages } from '../helpers/sse.js';
import { fixtureServer, postWithin, resumeWithin } from './fixtures.js';

const track = closeAfterEach();

const modernHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' };
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

test('deeply nested arguments to a tool that asks for input get -32602, and the process lives on', async () => {
  const served = track(await serve({ server: fixtureServer() }));
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
});

describe('a result that cannot be serialised', () => {
  test.each([
    ['no EventStore', () => undefined],
    ['an InMemoryEventStore', () => new InMemoryEventStore()],
  ] as Array<[string, () => EventStore | undefined]>)('with %s: -32603 with the request id ends the POST, onError gets the error, a resume replays the same error', async (_label, makeStore) => {
    const errors: unknown[] = [];
    const served = await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager({ eventStore: makeStore(), onError: (error) => errors.push(error) }) });
    try {
      const client = new RawClient(served.url);
      await client.initialize();
      const reply = await postWithin(client, toolCall(7, 'bigint'));
      expect(reply.status).toBe(200);
      const messages = sseMessages(reply.body);
      expect(messages).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32603, message: expect.stringContaining('serialis') } }]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(TypeError);
      expect((errors[0] as Error).message).toMatch(/BigInt/);

      // The same session goes on working.
      const next = await postWithin(client, toolCall(8, 'echo', { text: 'fine' }));
      expect(sseMessages(next.body)).toEqual([{ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'fine' }] } }]);

      const primingId = parseSse(reply.body)[0].id!;
      expect(primingId).toEqual(expect.any(String));
      const replay = await resumeWithin(client, primingId);
      expect(replay.status).toBe(200);
      expect(sseMessages(replay.body)).toEqual(messages);
    } finally {
      await served.close();
    }
  });
});


test('a server request whose params cannot be serialised fails the call instead of hanging it', async () => {
  const server = new McpServer({ name: 'unser', version: '1.0.0' });
  server.tool('bad_elicit', { description: 'Elicits with a BigInt in its params' }, async (_args, ctx) => {
    await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} }, big: BigInt(1) } as never);
    return { content: [{ type: 'text', text: 'unreachable' }] };
  });
  const errors: unknown[] = [];
  const served = track(await serve({ server, sessionManager: new LocalSessionManager({ onError: (error) => errors.push(error) }) }));
  const client = new RawClient(served.url);
  await client.initialize({ elicitation: {} });
  const call = await client.call(toolCall(2, 'bad_elicit'));
  expect(sseMessages(call.body).at(-1)).toMatchObject({ id: 2, error: { code: -32603, message: expect.stringContaining('cannot be serialised') } });
  expect(errors.length).toBeGreaterThanOrEqual(1);
});
