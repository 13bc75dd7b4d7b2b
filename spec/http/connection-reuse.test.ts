import http from 'node:http';
import { ACCEPT_BOTH, clientHeaders, type Harness, initializeRequest, isResponseTo, openLive, startHarness, toolCall } from '../helpers/http-helpers.js';

describe.each([
  ['SSE responses', false],
  ['JSON responses (enableJsonResponse)', true],
])('connection reuse with %s', (_label, enableJsonResponse) => {
  let h: Harness;
  let agent: http.Agent;
  let connections: number;
  beforeEach(async () => {
    h = await startHarness({ enableJsonResponse });
    connections = 0;
    h.http.on('connection', () => connections++);
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterEach(async () => {
    agent.destroy();
    await h.close();
  });

  const send = async (method: string, headers: Record<string, string>, body?: unknown) => {
    const live = await openLive(h, { method, headers, body, agent });
    await live.ended;
    return live;
  };

  test.each(['2025-03-26', '2025-06-18', '2025-11-25'])('%s: initialize and ten sequential tool calls share one socket', async (version) => {
    const init = await send('POST', { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, initializeRequest(version));
    expect(init.status).toBe(200);
    const sessionId = init.headers['mcp-session-id'] as string;
    expect((await send('POST', clientHeaders(version, sessionId), { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    for (let i = 0; i < 10; i++) {
      const res = await send('POST', clientHeaders(version, sessionId), toolCall(i, 'echo', { text: `n${i}` }));
      expect(res.status).toBe(200);
      const message = enableJsonResponse ? JSON.parse(res.text()) : res.messages().find(isResponseTo(i));
      expect(message).toEqual({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `n${i}` }] } });
    }
    expect(connections).toBe(1);
  });

  test('error responses (400, 404, 406, 415) do not cost the connection; a refused oversized body (413) closes it', async () => {
    const init = await send('POST', { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }, initializeRequest('2025-11-25'));
    const sessionId = init.headers['mcp-session-id'] as string;
    const headers = clientHeaders('2025-11-25', sessionId);
    expect((await send('POST', headers, '{not json')).status).toBe(400);
    expect((await send('POST', clientHeaders('2025-11-25', 'unknown'), toolCall(1, 'echo', { text: 'x' }))).status).toBe(404);
    expect((await send('POST', { ...headers, Accept: 'application/json' }, toolCall(1, 'echo', { text: 'x' }))).status).toBe(406);
    expect((await send('POST', { ...headers, 'Content-Type': 'text/plain' }, toolCall(1, 'echo', { text: 'x' }))).status).toBe(415);
    expect((await send('GET', { Accept: 'text/event-stream' })).status).toBe(400);
    expect(connections).toBe(1);
    // The server stops reading a body it refused as too large and closes the connection (the client may go on
    // sending); the next request takes a new one.
    const tooLarge = await send('POST', headers, toolCall(1, 'echo', { text: 'x'.repeat(5 * 1024 * 1024) }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.connection).toBe('close');
    expect((await send('DELETE', headers)).status).toBe(200);
    expect(connections).toBe(2);
  });
});
