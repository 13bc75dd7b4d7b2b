import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '../lib/index.js';
import { serve } from './helpers/serve.js';

test('sdk v1 client calls a tool', async () => {
  const server = new McpServer({ name: 'demo', version: '1.0.0' });
  server.tool('sum', { description: 'Add', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  const served = await serve({ server });
  const client = new Client({ name: 't', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(served.url));
  await client.connect(transport);
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(['sum']);
  const result = await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } });
  expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  await transport.terminateSession();
  await client.close();
  await served.close();
});
