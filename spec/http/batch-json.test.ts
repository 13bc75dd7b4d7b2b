/**
 * 2025-03-26 batches with enableJsonResponse: a JSON array while only responses come; a server→client request
 * (here `sampling/createMessage` from a batched tools/call) switches the answer to SSE, so the client can see
 * and answer it and the batch completes.
 */
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import { type Harness, isResponseTo, openPost, openSession, ping, postMessage, startHarness, toolCall } from '../helpers/http-helpers.js';

const VERSION = '2025-03-26';

function samplingServer(): McpServer {
  const server = new McpServer({ name: 'batch-json', version: '1.0.0' });
  server.tool('capital', { description: 'Asks the client LLM', inputSchema: { country: z.string() } }, async ({ country }, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `Capital of ${country}?` } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: `LLM said: ${(answer.content as { text?: string }).text}` }] };
  });
  server.tool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

describe('a 2025-03-26 batch with enableJsonResponse', () => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness({ server: samplingServer(), enableJsonResponse: true, sseKeepAlive: 0 });
    sessionId = await openSession(h, VERSION, { sampling: {} });
  });
  afterAll(() => h.close());

  test('only responses → one JSON array', async () => {
    const res = await postMessage(h, VERSION, sessionId, [toolCall(1, 'echo', { text: 'a' }), ping(2)]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  test('a sampling request from a batched tools/call switches to SSE, and the batch completes once answered', async () => {
    const live = await openPost(h, VERSION, sessionId, [ping('p'), toolCall('c', 'capital', { country: 'France' })]);
    const request = (await live.waitForMessage((message) => 'method' in message && message.method === 'sampling/createMessage', 2000)) as { id: string | number };
    expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
    const answered = await postMessage(h, VERSION, sessionId, {
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' },
    });
    expect(answered.status).toBe(202);
    await live.waitForMessage(isResponseTo('c'), 2000);
    await live.ended;
    const messages = live.messages();
    // The response collected before the switch comes first, then the request, then the call's response.
    expect(messages.map((message) => ('method' in message ? message.method : `response ${String(message.id)}`))).toEqual([
      'response p',
      'sampling/createMessage',
      'response c',
    ]);
    expect(messages.find(isResponseTo('c'))).toEqual({ jsonrpc: '2.0', id: 'c', result: { content: [{ type: 'text', text: 'LLM said: Paris' }] } });
  });
});
