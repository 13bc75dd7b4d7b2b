/**
 * Fuzzed traffic that overlaps or is cut short: several request-shaped messages at once in one session (or
 * stateless), uploads cut off mid-body, and clients that leave mid-response (a progress stream, a GET stream, a
 * listen stream). Every answer that arrives is below 500 and carries its own request's id; afterwards the server
 * still serves, with no unhandled rejection.
 */
import fc from 'fast-check';
import net from 'node:net';
import http from 'node:http';
import { encode, requestCase, type Era } from './arbitraries.js';
import { ACCEPT_BOTH, CONFIG_NAMES, MODERN, PRINCIPAL_HEADER, SEED, envelope, expectStillServing, modernHeaders, runs, sessionHeaders, useTargets, type FuzzTarget } from './fixture.js';
import { checkAnswer, checkEchoedId, isValidId } from './oracles.js';

const targets = useTargets();

/** The request lines and headers of a POST as raw text, with a declared Content-Length. */
function rawHead(headers: string[], contentLength: number): string {
  let head = `POST /mcp HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}Content-Length: ${contentLength}\r\nConnection: close\r\n\r\n`;
}

/** Sends the head and the first `sent` bytes of `body`, then drops the connection. */
function cutUpload(port: number, headers: string[], body: string, sent: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const bytes = Buffer.from(body, 'utf8');
      socket.write(rawHead(headers, bytes.length));
      socket.write(bytes.subarray(0, Math.min(sent, bytes.length - 1)));
      setImmediate(() => socket.destroy());
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

/** How long a response may take to reach the point where the client leaves; longer is a hang, and fails. */
const LEAVE_TIMEOUT_MS = 5000;

/**
 * Sends a request and leaves as soon as `leaveAfter` bytes of the response (0: its headers) have arrived.
 * Rejects when that takes longer than LEAVE_TIMEOUT_MS.
 */
function leaveEarly(port: number, method: string, headers: string[], body: string | undefined, leaveAfter: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const all = body === undefined ? headers : [...headers, 'Content-Length', String(Buffer.byteLength(body))];
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} got no ${leaveAfter === 0 ? 'response headers' : `${leaveAfter} bytes of response`} within ${LEAVE_TIMEOUT_MS} ms`));
    }, LEAVE_TIMEOUT_MS);
    const req = http.request({ host: '127.0.0.1', port, method, path: '/mcp', headers: all, agent: false, setHost: false }, (res) => {
      let received = 0;
      const leave = () => {
        clearTimeout(timer);
        res.destroy();
        resolve(res.statusCode ?? 0);
      };
      if (leaveAfter === 0) return leave();
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= leaveAfter) leave();
      });
      res.on('end', leave);
      res.on('error', leave);
    });
    req.on('error', () => {
      clearTimeout(timer);
      resolve(0);
    });
    req.end(body);
  });
}

describe.each(CONFIG_NAMES.map((name, index) => [name, index] as const))('%s', (name, index) => {
  it.each([['session', 0], ['modern', 1]] as const)('answers %s-era requests sent at once, each with its own id', async (era: Era, eraIndex) => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(fc.array(requestCase(era), { minLength: 2, maxLength: 6 }), async (cases) => {
        await Promise.all(
          cases.map(async (c) => {
            const body = encode(c.message);
            const sent = JSON.parse(body) as Record<string, unknown>;
            const headers =
              era === 'modern'
                ? ['Host', '127.0.0.1', 'Accept', ACCEPT_BOTH, 'Content-Type', 'application/json', PRINCIPAL_HEADER, 'alice', 'MCP-Protocol-Version', MODERN, ...c.extraHeaders]
                : sessionHeaders('alice', '2025-11-25', target.stateful ? await target.aliceSession('2025-11-25') : undefined);
            const res = await target.client.send({ method: 'POST', headers, body, read: sent.method === 'subscriptions/listen' ? 'window' : 'whole' });
            checkAnswer(res);
            if (isValidId(sent.id)) checkEchoedId(res, sent.id);
          }),
        );
      }),
      { seed: SEED + 800 + 10 * index + eraIndex, numRuns: runs(40) },
    );
  });

  it('survives uploads cut off mid-body and clients that leave mid-response', async () => {
    const target = targets.get(name);
    const progressCall = (id: number, modern: boolean) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'progress', arguments: {}, ...(modern ? { _meta: envelope() } : {}) } });
    const listen = JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: envelope() } });
    const interruption = fc.record({
      kind: fc.constantFrom('cut-upload', 'leave-progress', 'leave-modern-progress', 'leave-get', 'leave-listen'),
      at: fc.nat(200),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(interruption, { minLength: 1, maxLength: 4 }), async (interruptions) => {
        const sessionId = target.stateful ? await target.aliceSession('2025-11-25') : undefined;
        await Promise.all(
          interruptions.map(async ({ kind, at }, i) => {
            switch (kind) {
              case 'cut-upload':
                return cutUpload(target.port, sessionHeaders('alice', '2025-11-25', sessionId), progressCall(100 + i, false), at);
              case 'leave-progress':
                return void (await leaveEarly(target.port, 'POST', sessionHeaders('alice', '2025-11-25', sessionId), progressCall(200 + i, false), at % 3));
              case 'leave-modern-progress':
                return void (await leaveEarly(target.port, 'POST', modernHeaders('alice', 'tools/call', 'progress'), progressCall(300 + i, true), at % 3));
              case 'leave-get':
                // Leaves at the headers: a GET beside a live one is a keep-alive-only shadow with no bytes to wait for.
                return void (await leaveEarly(target.port, 'GET', ['Host', '127.0.0.1', 'Accept', 'text/event-stream', PRINCIPAL_HEADER, 'alice', ...(sessionId ? ['Mcp-Session-Id', sessionId, 'MCP-Protocol-Version', '2025-11-25'] : [])], undefined, 0));
              case 'leave-listen':
                return void (await leaveEarly(target.port, 'POST', modernHeaders('alice', 'subscriptions/listen'), listen, at % 2));
            }
          }),
        );
        // The session (or the stateless path) still answers at once.
        const res = await target.client.send({ method: 'POST', headers: sessionHeaders('alice', '2025-11-25', sessionId), body: JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } }) });
        checkAnswer(res);
        expect(res.status).toBe(200);
        expect(res.text).toContain('"id":"after"');
      }),
      { seed: SEED + 900 + index, numRuns: runs(40) },
    );
  });

  it('still serves a tools/call after the fuzz', async () => {
    await expectStillServing(targets.get(name));
  });
});
