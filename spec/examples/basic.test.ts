/** examples/basic, booted as `npm run example:basic` boots it, driven by the official SDK v1 client. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBasicExample, type RunningExample } from '../../examples/basic/server';

let example: RunningExample;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  example = await startBasicExample({ port: 0, host: '127.0.0.1' });
  client = new Client({ name: 'basic-example-test', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(example.url));
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await example?.close();
});

test('a session is open, and the tool answers with text and structured content', async () => {
  expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['add']);
  expect(tools[0].outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
  expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({ content: [{ type: 'text', text: '42' }], structuredContent: { sum: 42 } });
});

test('invalid arguments are a tool error, not a crash', async () => {
  const result = await client.callTool({ name: 'add', arguments: { a: 'two', b: 1 } });
  expect(result.isError).toBe(true);
});

test('the resource template reads its variable', async () => {
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['greeting://{name}']);
  const { contents } = await client.readResource({ uri: 'greeting://Ada' });
  expect(contents).toEqual([{ uri: 'greeting://Ada', mimeType: 'text/plain', text: 'Hello, Ada!' }]);
});

test('the prompt renders its argument', async () => {
  const prompt = await client.getPrompt({ name: 'review', arguments: { code: 'let x = 1' } });
  expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please review:\nlet x = 1' } }]);
});

test('DELETE ends the session: its id is then unknown', async () => {
  const sessionId = transport.sessionId!;
  await transport.terminateSession();
  const res = await fetch(example.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
  });
  expect(res.status).toBe(404);
});
