import http from 'node:http';
import { ACCEPT_BOTH, clientHeaders, type Harness, initializeRequest, openSession, parseRawResponse, ping, postMessage, rawHttp, sseMessages, startHarness, toolCall } from '../helpers/http-helpers.js';

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomJson(next: () => number, depth = 0): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 2 ** 40) * (next() < 0.5 ? -1 : 1) / (next() < 0.2 ? 7 : 1);
    case 3:
      return ['jsonrpc', '2.0', 'initialize', 'ping', 'tools/call', 'notifications/cancelled', '', '\u0000', '__proto__', 'é'][Math.floor(next() * 10)];
    case 4:
      return String.fromCharCode(...Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * 0x2fff)));
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomJson(next, depth + 1));
    default: {
      const keys = ['jsonrpc', 'id', 'method', 'params', 'result', 'error', 'name', 'arguments', '_meta', 'progressToken', 'requestId', '__proto__', 'constructor'];
      const value: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) value[keys[Math.floor(next() * keys.length)]] = randomJson(next, depth + 1);
      if (next() < 0.5) value.jsonrpc = '2.0';
      return value;
    }
  }
}

describe('malformed session ids', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await openSession(h, '2025-11-25');
  });
  afterAll(() => h.close());

  const expectNotFound = (status: number, body: unknown) => {
    expect(status).toBe(404);
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringContaining('Session not found') } });
  };

  test.each([
    ['very long (300 visible chars)', 'a'.repeat(300)],
    ['very long (8000 chars)', 'x'.repeat(8000)],
    ['with a space', 'abc def'],
    ['latin-1 bytes', 'caf\u00e9-\u00ff'],
    ['a valid-looking UUID', '00000000-0000-4000-8000-000000000000'],
  ])('%s → 404 on POST, GET and DELETE', async (_label, sessionId) => {
    const post = await postMessage(h, '2025-11-25', sessionId, ping(1));
    expectNotFound(post.status, post.body);
    expect(post.body.id).toBe(1);
    expect(post.body.error.message.length).toBeLessThan(200);
    const notification = await postMessage(h, '2025-11-25', sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expectNotFound(notification.status, notification.body);
    const get = await h.api().get('/mcp').set({ Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId });
    expectNotFound(get.status, get.body);
    const del = await h.api().delete('/mcp').set({ 'Mcp-Session-Id': sessionId });
    expectNotFound(del.status, del.body);
  });

  test('raw UTF-8 bytes in Mcp-Session-Id → 404', async () => {
    const body = JSON.stringify(ping(1));
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nAccept: ${ACCEPT_BOTH}\r\nContent-Type: application/json\r\nConnection: close\r\nMcp-Session-Id: `;
    const raw = Buffer.concat([Buffer.from(head), Buffer.from('séssion-💥', 'utf8'), Buffer.from(`\r\nContent-Length: ${body.length}\r\n\r\n${body}`)]);
    const res = parseRawResponse(await rawHttp(h.port, raw));
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ id: 1, error: { code: -32001 } });
  });

  test('a control character in the header is refused (by the HTTP parser) without harm', async () => {
    const raw = `DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nConnection: close\r\nMcp-Session-Id: ab\u0001cd\r\n\r\n`;
    const res = parseRawResponse(await rawHttp(h.port, raw));
    expect([400, 404]).toContain(res.status);
    expect((await h.api().delete('/mcp').set({ 'Mcp-Session-Id': 'still-fine' })).status).toBe(404);
  });

  test('repeated Mcp-Session-Id headers (joined by Node) → 404, not a crash', async () => {
    const sessionId = await openSession(h, '2025-11-25');
    const body = JSON.stringify(ping(1));
    const raw = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nAccept: ${ACCEPT_BOTH}\r\nContent-Type: application/json\r\nConnection: close\r\nMcp-Session-Id: ${sessionId}\r\nMcp-Session-Id: ${sessionId}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const res = parseRawResponse(await rawHttp(h.port, raw));
    expect(res.status).toBe(404);
  });
});

describe('garbage bodies never crash the process', () => {
  let h: Harness;
  let sessionId: string;
  let legacySession: string;
  const errors: unknown[] = [];
  const onError = (error: unknown) => errors.push(error);
  beforeAll(async () => {
    process.on('uncaughtException', onError);
    process.on('unhandledRejection', onError);
    h = await startHarness();
    sessionId = await openSession(h, '2025-11-25');
    legacySession = await openSession(h, '2025-03-26');
  });
  afterAll(async () => {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
    await h.close();
  });

  const alive = async () => {
    const res = await postMessage(h, '2025-11-25', sessionId, ping('alive'));
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 'alive', result: {} }]);
  };

  test('random bytes', async () => {
    const next = random(1);
    for (let i = 0; i < 150; i++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
      const res = await h.api().post('/mcp').set(clientHeaders('2025-11-25', sessionId)).send(bytes.toString('latin1'));
      expect([400, 413]).toContain(res.status);
      expect(res.body.jsonrpc).toBe('2.0');
    }
    await alive();
    expect(errors).toEqual([]);
  });

  test.each([
    ['a 2025-11-25 session', () => ({ version: '2025-11-25', id: sessionId })],
    ['a 2025-03-26 session (batches allowed)', () => ({ version: '2025-03-26', id: legacySession })],
    ['no session', () => ({ version: '2025-11-25', id: undefined })],
  ])('random JSON values with %s', async (_label, which) => {
    const { version, id } = which();
    const next = random(version.length + (id ? 7 : 3));
    for (let i = 0; i < 300; i++) {
      const body = randomJson(next);
      const res = await postMessage(h, version, id, JSON.stringify(body));
      expect([200, 202, 400, 404]).toContain(res.status);
      if (res.status >= 400) expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
    }
    await alive();
    expect(errors).toEqual([]);
  });

  test('pathological JSON: deep nesting, huge numbers, odd ids', async () => {
    const bodies = [
      '['.repeat(100_000),
      '['.repeat(50_000) + ']'.repeat(50_000),
      '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
      // biome-ignore lint/correctness/noPrecisionLoss: a number JSON cannot hold, on purpose
      JSON.stringify({ jsonrpc: '2.0', id: 1e400, method: 'ping' }).replace('null', '1e400'),
      // biome-ignore lint/correctness/noPrecisionLoss: an id past the safe integers, on purpose
      JSON.stringify({ jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER + 2, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: '__proto__', method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'constructor' }),
      JSON.stringify({ jsonrpc: '2.0', id: 't', method: 'toString' }),
      JSON.stringify({ jsonrpc: '2.0', method: 'hasOwnProperty' }),
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":' + '['.repeat(5000) + ']'.repeat(5000) + '}}',
    ];
    for (const body of bodies) {
      const res = await postMessage(h, '2025-11-25', sessionId, body);
      expect([200, 202, 400]).toContain(res.status);
    }
    await alive();
    expect(errors).toEqual([]);
  });

  test('a progressToken too deep to serialise costs at most that request’s connection', async () => {
    // The token is echoed in notifications/progress; JSON.stringify of it throws RangeError mid-stream.
    const body =
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":' +
      '['.repeat(20_000) +
      ']'.repeat(20_000) +
      '}}}';
    const outcome = await postMessage(h, '2025-11-25', sessionId, body).then(
      (res) => res.status,
      (error: Error) => error.message,
    );
    expect([200, 400, 'socket hang up']).toContain(outcome);
    await alive();
    expect(errors).toEqual([]);
  });

  test('a client that disconnects in the middle of its body does no harm', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port: h.port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { ...clientHeaders('2025-11-25', sessionId), 'Content-Length': '1000' },
      });
      req.on('error', () => resolve());
      req.write('{"jsonrpc":"2.0","id":1,');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 30);
    });
    await alive();
    const init = await h.api().post('/mcp').set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }).send(initializeRequest('2025-06-18'));
    expect(init.status).toBe(200);
    expect((await postMessage(h, '2025-11-25', sessionId, toolCall(9, 'echo', { text: 'ok' }))).status).toBe(200);
    expect(errors).toEqual([]);
  });
});
