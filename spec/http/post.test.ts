import express from 'express';
import http from 'node:http';
import { ACCEPT_BOTH, clientHeaders, type Harness, initializeRequest, isResponseTo, openPost, openSession, ping, postMessage, SESSION_ERA, sseMessages, parseSse, startHarness, toolCall } from '../helpers/http-helpers.js';

const JSON_CT = { 'Content-Type': 'application/json' };

describe('POST: Accept and Content-Type', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test.each([
    ['missing', undefined],
    ['application/json only', 'application/json'],
    ['text/event-stream only', 'text/event-stream'],
    ['a wildcard', '*/*'],
    ['application/*, text/*', 'application/*, text/*'],
  ])('Accept %s → 406', async (_label, accept) => {
    const req = h.api().post('/mcp').set(JSON_CT);
    if (accept !== undefined) req.set('Accept', accept);
    else req.unset('Accept');
    const res = await req.send(initializeRequest('2025-11-25'));
    expect(res.status).toBe(406);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Not Acceptable') } });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  test('Accept listing both types, with parameters and in any order, is accepted', async () => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ ...JSON_CT, Accept: 'text/event-stream;q=0.9, application/json;q=1' })
      .send(initializeRequest('2025-11-25'));
    expect(res.status).toBe(200);
  });

  test.each([
    ['missing', undefined],
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['application/jsonl', 'application/jsonl'],
  ])('Content-Type %s → 415', async (_label, contentType) => {
    const req = h.api().post('/mcp').set('Accept', ACCEPT_BOTH);
    if (contentType !== undefined) req.set('Content-Type', contentType);
    const res = await req.send(JSON.stringify(initializeRequest('2025-11-25')));
    expect(res.status).toBe(415);
    expect(res.body.error).toEqual({ code: -32000, message: expect.stringContaining('Content-Type must be application/json') });
  });

  test.each(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'])('Content-Type %s is accepted', async (contentType) => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': contentType })
      .send(JSON.stringify(initializeRequest('2025-11-25')));
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toBeDefined();
  });
});

describe('POST: body size limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ maxBodyBytes: 1024 });
  });
  afterAll(() => h.close());

  const big = () => ({ ...initializeRequest('2025-11-25'), params: { ...initializeRequest('2025-11-25').params, padding: 'x'.repeat(2000) } });

  test('a body over maxBodyBytes with Content-Length → 413', async () => {
    const res = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(big());
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/exceeds 1024 bytes.*maxBodyBytes/) } });
  });

  test('a chunked body (no Content-Length) over maxBodyBytes → 413', async () => {
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: h.port, path: '/mcp', method: 'POST', agent: false, headers: { Accept: ACCEPT_BOTH, ...JSON_CT, 'Transfer-Encoding': 'chunked' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      const text = JSON.stringify(big());
      // Several chunks, so the limit is crossed while streaming.
      for (let at = 0; at < text.length; at += 300) req.write(text.slice(at, at + 300));
      req.end();
    });
    expect(status.status).toBe(413);
    expect(JSON.parse(status.body).error.code).toBe(-32000);
  });

  test('a body of exactly maxBodyBytes is accepted (the limit is inclusive)', async () => {
    const base = JSON.stringify(initializeRequest('2025-11-25'));
    const padded = base.slice(0, -1) + ' '.repeat(1024 - base.length) + '}';
    expect(Buffer.byteLength(padded)).toBe(1024);
    const res = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(padded);
    expect(res.status).toBe(200);
  });

  test('the server still serves requests after a 413', async () => {
    await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(big());
    const res = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(initializeRequest('2025-06-18'));
    expect(res.status).toBe(200);
  });
});

describe('POST: malformed bodies', () => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness();
    sessionId = await openSession(h, '2025-11-25');
  });
  afterAll(() => h.close());

  test.each(['{', '{"jsonrpc":"2.0",', 'not json', '', '{"a":1}}'])('invalid JSON %j → 400 -32700 with a null id', async (body) => {
    const res = await h.api().post('/mcp').set(clientHeaders('2025-11-25', sessionId)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } });
  });

  test.each([
    ['a number', 42, null],
    ['a string', 'hello', null],
    ['null', null, null],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 5, method: 'ping' }, 5],
    ['a non-string method', { jsonrpc: '2.0', id: 'abc', method: 7 }, 'abc'],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, 1.5],
    ['params that are not an object', { jsonrpc: '2.0', id: 9, method: 'ping', params: [1, 2] }, 9],
    ['neither method nor result', { jsonrpc: '2.0', id: 3 }, 3],
    ['a result that is not an object', { jsonrpc: '2.0', id: 4, result: 'x' }, 4],
  ])('%s → 400 -32600, id echoed when present', async (_label, body, id) => {
    const res = await h.api().post('/mcp').set(clientHeaders('2025-11-25', sessionId)).send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringContaining('Invalid Request') } });
  });
});

describe('POST: with or without express.json() before the middleware', () => {
  test.each([
    ['without a body parser', undefined],
    ['after express.json()', (app: express.Express) => app.use(express.json())],
    ['after express.json({ type: "*/*" })', (app: express.Express) => app.use(express.json({ type: '*/*' }))],
  ])('%s: initialize, a tool call and a notification work', async (_label, before) => {
    const h = await startHarness({}, before);
    try {
      const sessionId = await openSession(h, '2025-06-18');
      const res = await postMessage(h, '2025-06-18', sessionId, toolCall(1, 'echo', { text: 'hi' }));
      expect(res.status).toBe(200);
      expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } }]);
    } finally {
      await h.close();
    }
  });

  test('after express.json(), a body over maxBodyBytes with Content-Length still gets 413', async () => {
    const h = await startHarness({ maxBodyBytes: 512 }, (app) => app.use(express.json()));
    try {
      const body = { ...initializeRequest('2025-11-25'), params: { ...initializeRequest('2025-11-25').params, padding: 'x'.repeat(1000) } };
      const res = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(body);
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe(-32000);
    } finally {
      await h.close();
    }
  });
});

describe.each(SESSION_ERA)('POST as a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness();
    sessionId = await openSession(h, version);
  });
  afterAll(() => h.close());

  test('a request without Mcp-Session-Id → 400 (-32000), id echoed', async () => {
    const res = await postMessage(h, version, undefined, ping(11));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32000, message: expect.stringContaining('Mcp-Session-Id header is required') } });
  });

  test('a notification without Mcp-Session-Id → 400', async () => {
    const res = await postMessage(h, version, undefined, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32000);
  });

  test('an unknown session id → 404 (-32001), id echoed', async () => {
    const res = await postMessage(h, version, '4b4d4e2a-0000-4000-8000-000000000000', ping(12));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 12, error: { code: -32001, message: expect.stringContaining('Session not found') } });
  });

  test('an unknown session id on a notification → 404', async () => {
    const res = await postMessage(h, version, 'no-such-session', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(-32001);
  });

  test('a notification → 202 with an empty body', async () => {
    const res = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
  });

  test('a response (to an unknown server request) → 202 with an empty body', async () => {
    const result = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: 999, result: {} });
    expect(result.status).toBe(202);
    expect(result.text).toBe('');
    const error = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: 998, error: { code: -1, message: 'no' } });
    expect(error.status).toBe(202);
    expect(error.text).toBe('');
  });

  test('a request → a text/event-stream holding exactly its response', async () => {
    const res = await postMessage(h, version, sessionId, toolCall('r1', 'echo', { text: 'hello' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.headers['x-accel-buffering']).toBe('no');
    const frames = parseSse(res.text);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 'r1', result: { content: [{ type: 'text', text: 'hello' }] } }]);
    expect(frames[frames.length - 1].event).toBe('message');
    if (version >= '2025-11-25') {
      // SEP-1699 priming: an id and a retry with empty data, before anything else.
      expect(frames[0]).toEqual({ id: expect.any(String), retry: 3000, data: '', comments: [] });
    } else {
      // Older clients choke on empty data: no priming event for them.
      expect(frames.every((frame) => frame.data !== '' && frame.retry === undefined)).toBe(true);
    }
  });

  test('the request stream ends right after the response', async () => {
    const live = await openPost(h, version, sessionId, toolCall('r2', 'wait', { ms: 150 }));
    await live.waitForMessage(isResponseTo('r2'));
    expect(live.status).toBe(200);
    // The server ends it by itself (the client never closes it), and nothing follows the response.
    await live.ended;
    expect(live.messages()).toHaveLength(1);
    const frames = live.frames();
    expect(frames[frames.length - 1].data).toContain('"id":"r2"');
    expect(live.text().endsWith('\n\n')).toBe(true);
  });

  test('an unknown method → a -32601 error response on the stream', async () => {
    const res = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: 'm', method: 'no/such/method' });
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 'm', error: { code: -32601, message: 'Method not found: no/such/method' } }]);
  });

  test('an unsupported MCP-Protocol-Version → 400 (-32000), id echoed', async () => {
    const res = await h
      .api()
      .post('/mcp')
      .set({ ...clientHeaders(version, sessionId), 'MCP-Protocol-Version': '1999-01-01' })
      .send(ping(13));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 13, error: { code: -32000, message: expect.stringContaining('unsupported MCP-Protocol-Version "1999-01-01"') } });
  });

  test('no MCP-Protocol-Version header is accepted (assumed 2025-03-26)', async () => {
    const headers = clientHeaders(version, sessionId);
    delete headers['MCP-Protocol-Version'];
    const res = await h.api().post('/mcp').set(headers).send(ping(14));
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 14, result: {} }]);
  });
});

describe.each(SESSION_ERA)('POST with enableJsonResponse as a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  beforeAll(async () => {
    h = await startHarness({ enableJsonResponse: true });
    sessionId = await openSession(h, version);
  });
  afterAll(() => h.close());

  test('initialize is answered with application/json and carries Mcp-Session-Id', async () => {
    const res = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send(initializeRequest(version, 'i'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toMatch(/^[\x21-\x7E]+$/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 'i', result: { protocolVersion: version } });
  });

  test('a request is answered with one application/json body', async () => {
    const res = await postMessage(h, version, sessionId, toolCall(1, 'echo', { text: 'json' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'json' }] } });
  });

  test('falls back to SSE when a progress notification precedes the result', async () => {
    const res = await postMessage(h, version, sessionId, toolCall(2, 'progress', { steps: 2 }, { progressToken: 'p' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const messages = sseMessages(res.text);
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2, message: 'step 1' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 2, message: 'step 2' } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
  });

  test('a notification is still 202 with an empty body', async () => {
    const res = await postMessage(h, version, sessionId, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });
});

describe('POST: JSON-RPC batches', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test('a 2025-03-26 session may send a batch of requests: one SSE stream with every response', async () => {
    const sessionId = await openSession(h, '2025-03-26');
    const res = await postMessage(h, '2025-03-26', sessionId, [ping('a'), toolCall('b', 'echo', { text: 'x' })]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(sseMessages(res.text)).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: { content: [{ type: 'text', text: 'x' }] } },
    ]);
  });

  test('a 2025-03-26 batch of only notifications and responses → 202 with an empty body', async () => {
    const sessionId = await openSession(h, '2025-03-26');
    const res = await postMessage(h, '2025-03-26', sessionId, [
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 77, result: {} },
    ]);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  test('a 2025-03-26 batch with enableJsonResponse → a JSON array of the responses', async () => {
    const jsonServer = await startHarness({ enableJsonResponse: true });
    try {
      const sessionId = await openSession(jsonServer, '2025-03-26');
      const res = await postMessage(jsonServer, '2025-03-26', sessionId, [ping(1), { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, ping(2)]);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    } finally {
      await jsonServer.close();
    }
  });

  test('initialize inside a batch → 400 -32600 (even as the only item, without a session)', async () => {
    const alone = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send([initializeRequest('2025-03-26', 'x')]);
    expect(alone.status).toBe(400);
    expect(alone.body).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32600, message: expect.stringContaining('initialize must not be part of a batch') } });
    expect(alone.headers['mcp-session-id']).toBeUndefined();
    const sessionId = await openSession(h, '2025-03-26');
    const mixed = await postMessage(h, '2025-03-26', sessionId, [ping(1), initializeRequest('2025-03-26', 2)]);
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe(-32600);
  });

  test('an empty batch or a batch with an invalid item → 400 -32600', async () => {
    const sessionId = await openSession(h, '2025-03-26');
    const empty = await postMessage(h, '2025-03-26', sessionId, []);
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe(-32600);
    const invalid = await postMessage(h, '2025-03-26', sessionId, [ping(1), { jsonrpc: '2.0', id: 2 }]);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: expect.stringContaining('batch item') } });
  });

  test('a batch without a session id → 400, with an unknown one → 404', async () => {
    const none = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, ...JSON_CT }).send([ping(1)]);
    expect(none.status).toBe(400);
    const unknown = await postMessage(h, '2025-03-26', 'unknown-session', [ping(1)]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(-32001);
  });

  test.each(['2025-06-18', '2025-11-25'])('a session negotiated at %s may not send batches → 400 -32600', async (version) => {
    const sessionId = await openSession(h, version);
    const res = await postMessage(h, version, sessionId, [ping(1), ping(2)]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('only accepted from clients that negotiated 2025-03-26') } });
  });

  test.each(['2025-06-18', '2025-11-25'])('a %s session cannot get batches accepted by omitting or faking the version header', async (version) => {
    const sessionId = await openSession(h, version);
    const headers = clientHeaders(version, sessionId);
    delete headers['MCP-Protocol-Version'];
    const omitted = await h.api().post('/mcp').set(headers).send([ping(1)]);
    expect(omitted.status).toBe(400);
    expect(omitted.body.error.code).toBe(-32600);
    const faked = await h.api().post('/mcp').set({ ...headers, 'MCP-Protocol-Version': '2025-03-26' }).send([ping(1)]);
    expect(faked.status).toBe(400);
    expect(faked.body.error.code).toBe(-32600);
  });
});
