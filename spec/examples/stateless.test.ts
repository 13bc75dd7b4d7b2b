/**
 * examples/stateless, booted as `npm run example:stateless` boots it, driven by the official SDK clients: v1 (2025
 * era, served without a session) and v2 (2026-07-28 when it probes for it).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startStatelessExample, type RunningExample } from '../../examples/stateless/server';

let example: RunningExample;

beforeAll(async () => {
  example = await startStatelessExample({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await example?.close();
});

test('the SDK v1 client is served without a session, progress included', async () => {
  const client = new Client({ name: 'stateless-example-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(example.url));
  try {
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['count', 'uppercase']);
    expect(await client.callTool({ name: 'uppercase', arguments: { text: 'quiet' } })).toEqual({ content: [{ type: 'text', text: 'QUIET' }] });
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(progress).toEqual([1, 2, 3]);
  } finally {
    await client.close();
  }
});

test('GET and DELETE answer 405 (there is no session to stream or end)', async () => {
  const get = await fetch(example.url, { headers: { Accept: 'text/event-stream' } });
  expect(get.status).toBe(405);
  expect(get.headers.get('allow')).toBe('POST');
  const del = await fetch(example.url, { method: 'DELETE' });
  expect(del.status).toBe(405);
});

test('the SDK v2 client negotiates 2026-07-28 and calls the tool', async () => {
  const client = new ClientV2({ name: 'stateless-example-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  try {
    await client.connect(new TransportV2(new URL(example.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await client.callTool({ name: 'uppercase', arguments: { text: 'modern' } });
    expect(result.content).toEqual([{ type: 'text', text: 'MODERN' }]);
  } finally {
    await client.close();
  }
});
