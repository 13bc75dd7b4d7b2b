import type { McpMiddlewareOptions } from '../../lib/index.js';
import { ACCEPT_BOTH, type Harness, initializeRequest, parseRawResponse, rawHttp, startHarness } from '../helpers/http-helpers.js';

const INIT_HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };

async function withServer(options: Partial<McpMiddlewareOptions>, run: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await run(h);
  } finally {
    await h.close();
  }
}

/** POSTs initialize with the given Host/Origin (undefined: Origin not sent; Host defaults to 127.0.0.1:port). */
function init(h: Harness, headers: { host?: string; origin?: string }) {
  const req = h.api().post('/mcp').set(INIT_HEADERS);
  if (headers.host !== undefined) req.set('Host', headers.host);
  if (headers.origin !== undefined) req.set('Origin', headers.origin);
  return req.send(initializeRequest('2025-11-25'));
}

const hostForbidden = (host: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: expect.stringMatching(new RegExp(`^Forbidden: Host header "${host.replace(/[[\].]/g, '\\$&')}" is not allowed.*allowedHosts`)) },
});
const originForbidden = (origin: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: expect.stringMatching(new RegExp(`^Forbidden: Origin "${origin.replace(/[[\].]/g, '\\$&')}" is not allowed.*allowedOrigins`)) },
});

describe('default guard (loopback hosts, any port)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test.each(['localhost', 'localhost:3000', '127.0.0.1', '127.0.0.1:65535', '[::1]', '[::1]:8080', 'LocalHost:1'])('Host %s is allowed', async (host) => {
    const res = await init(h, { host });
    expect(res.status).toBe(200);
  });

  test.each(['evil.example', 'evil.example:80', 'localhost.evil.example', '127.0.0.1.nip.io', '0.0.0.0', '[::2]:80', 'localhost:abc', 'user@localhost'])(
    'Host %s → 403 naming allowedHosts',
    async (host) => {
      const res = await init(h, { host });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(hostForbidden(host));
      expect(res.headers['mcp-session-id']).toBeUndefined();
    },
  );

  test('verdicts hold for repeated values and after more distinct values than the middleware remembers (64)', async () => {
    // Allowed and refused values interleaved, each sent twice, 150 distinct values in all: the map of checked
    // values starts over twice, and no remembered verdict may leak onto another value.
    for (let i = 0; i < 75; i++) {
      for (let round = 0; round < 2; round++) {
        expect((await init(h, { host: `127.0.0.1:${1000 + i}` })).status).toBe(200);
        const refused = await init(h, { host: `evil${i}.example:${1000 + i}` });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual(hostForbidden(`evil${i}.example:${1000 + i}`));
      }
    }
  });

  test('the Host check covers GET and DELETE too', async () => {
    const get = await h.api().get('/mcp').set({ Host: 'evil.example', Accept: 'text/event-stream', 'Mcp-Session-Id': 'x' });
    expect(get.status).toBe(403);
    const del = await h.api().delete('/mcp').set({ Host: 'evil.example', 'Mcp-Session-Id': 'x' });
    expect(del.status).toBe(403);
  });

  test('a request without Origin passes', async () => {
    const res = await init(h, {});
    expect(res.status).toBe(200);
  });

  test.each(['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:3000', 'HTTP://LOCALHOST'])('Origin %s (a loopback host) passes', async (origin) => {
    const res = await init(h, { origin });
    expect(res.status).toBe(200);
  });

  test.each(['http://evil.example', 'https://localhost.evil.example', 'null', 'file://', 'ftp://localhost', 'not a url'])(
    'Origin %s → 403 naming allowedOrigins',
    async (origin) => {
      const res = await init(h, { origin });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(originForbidden(origin));
    },
  );

  test('a request without a Host header → 400', async () => {
    // node:http always sends Host; HTTP/1.0 lets us omit it without the server's own HTTP/1.1 Host check firing.
    const body = JSON.stringify(initializeRequest('2025-11-25'));
    const raw = await rawHttp(
      h.port,
      `POST /mcp HTTP/1.0\r\nAccept: ${ACCEPT_BOTH}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const res = parseRawResponse(raw);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: missing Host header' } });
  });
});

describe('allowedHosts', () => {
  test('a list replaces the default; entries without a port allow any port; Origin follows the list', () =>
    withServer({ allowedHosts: ['mcp.example.com'] }, async (h) => {
      expect((await init(h, { host: 'mcp.example.com' })).status).toBe(200);
      expect((await init(h, { host: 'MCP.example.com:8443' })).status).toBe(200);
      const loopback = await init(h, { host: `127.0.0.1:${h.port}` });
      expect(loopback.status).toBe(403);
      expect(loopback.body).toEqual(hostForbidden(`127.0.0.1:${h.port}`));
      expect((await init(h, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })).status).toBe(200);
      const otherOrigin = await init(h, { host: 'mcp.example.com', origin: 'http://localhost' });
      expect(otherOrigin.status).toBe(403);
      expect(otherOrigin.body).toEqual(originForbidden('http://localhost'));
    }));

  test('two middlewares with different lists judge the same Host value each by its own list, in either order', () =>
    withServer({ allowedHosts: ['a.example'] }, (onlyA) =>
      withServer({ allowedHosts: ['b.example'] }, async (onlyB) => {
        // A verdict remembered by one middleware must never answer for the other.
        expect((await init(onlyA, { host: 'a.example' })).status).toBe(200);
        expect((await init(onlyB, { host: 'a.example' })).status).toBe(403);
        expect((await init(onlyB, { host: 'b.example' })).status).toBe(200);
        expect((await init(onlyA, { host: 'b.example' })).status).toBe(403);
        expect((await init(onlyA, { host: 'a.example' })).status).toBe(200);
        expect((await init(onlyB, { host: 'a.example' })).status).toBe(403);
      }),
    ));

  test('an entry with a port allows that port only', () =>
    withServer({ allowedHosts: ['mcp.example.com:8443', '::1'] }, async (h) => {
      expect((await init(h, { host: 'mcp.example.com:8443' })).status).toBe(200);
      expect((await init(h, { host: 'mcp.example.com:8444' })).status).toBe(403);
      expect((await init(h, { host: 'mcp.example.com' })).status).toBe(403);
      // "::1" is normalised to its Host-header form.
      expect((await init(h, { host: '[::1]:9' })).status).toBe(200);
    }));

  test('false turns the Host check off (any Host, even none); Origin still defaults to loopback', () =>
    withServer({ allowedHosts: false }, async (h) => {
      expect((await init(h, { host: 'evil.example' })).status).toBe(200);
      expect((await init(h, { host: 'evil.example', origin: 'http://localhost:1234' })).status).toBe(200);
      const origin = await init(h, { host: 'evil.example', origin: 'http://evil.example' });
      expect(origin.status).toBe(403);
      expect(origin.body).toEqual(originForbidden('http://evil.example'));
      const body = JSON.stringify(initializeRequest('2025-11-25'));
      const raw = parseRawResponse(
        await rawHttp(h.port, `POST /mcp HTTP/1.0\r\nAccept: ${ACCEPT_BOTH}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
      );
      expect(raw.status).toBe(200);
    }));
});

describe('allowedOrigins', () => {
  test('a list of exact origins replaces the default (trailing slash and case do not matter)', () =>
    withServer({ allowedOrigins: ['https://App.example.com/'] }, async (h) => {
      expect((await init(h, { origin: 'https://app.example.com' })).status).toBe(200);
      expect((await init(h, { origin: 'HTTPS://APP.EXAMPLE.COM' })).status).toBe(200);
      expect((await init(h, {})).status).toBe(200);
      for (const origin of ['http://app.example.com', 'https://app.example.com:444', 'https://evil.example', 'http://localhost:3000']) {
        const res = await init(h, { origin });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(originForbidden(origin));
      }
      // The Host check still applies.
      expect((await init(h, { host: 'evil.example', origin: 'https://app.example.com' })).status).toBe(403);
    }));

  test('false turns the Origin check off; the Host check stays', () =>
    withServer({ allowedOrigins: false }, async (h) => {
      expect((await init(h, { origin: 'http://evil.example' })).status).toBe(200);
      expect((await init(h, { origin: 'null' })).status).toBe(200);
      const host = await init(h, { host: 'evil.example', origin: 'http://evil.example' });
      expect(host.status).toBe(403);
      expect(host.body).toEqual(hostForbidden('evil.example'));
    }));

  test('both false: no checks at all', () =>
    withServer({ allowedHosts: false, allowedOrigins: false }, async (h) => {
      expect((await init(h, { host: 'evil.example', origin: 'http://evil.example' })).status).toBe(200);
    }));
});
