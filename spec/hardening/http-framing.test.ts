/**
 * HTTP/1.1 framing on a real socket: a request with two Host fields is refused (RFC 9112 §3.2), and a body the
 * server refuses early is not read to its end: after a 413 the server stops reading and closes the connection,
 * while a small body refused for its Content-Type (415) leaves the connection usable.
 */
import net from 'node:net';
import { ACCEPT_BOTH, initializeRequest, parseRawResponse, rawHttp } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders, startModern, type ModernHarness } from '../helpers/modern.js';
import { RawConnection, rawPost } from './fixtures.js';

let h: ModernHarness;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await h?.close();
});

describe('two Host headers', () => {
  beforeEach(async () => {
    h = await startModern();
  });

  const request = (hosts: string[]) => {
    const body = JSON.stringify(initializeRequest('2025-11-25', 'init'));
    const head = [
      'POST /mcp HTTP/1.1',
      ...hosts.map((host) => `Host: ${host}`),
      'Content-Type: application/json',
      `Accept: ${ACCEPT_BOTH}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    return `${head.join('\r\n')}\r\n\r\n${body}`;
  };

  test.each([
    ['the allowed host first', (port: number) => [`127.0.0.1:${port}`, 'evil.example']],
    ['the allowed host last', (port: number) => ['evil.example', `127.0.0.1:${port}`]],
    ['the same host twice', (port: number) => [`127.0.0.1:${port}`, `127.0.0.1:${port}`]],
  ])('%s: 400 with a JSON-RPC error naming Host', async (_label, hosts) => {
    const response = parseRawResponse(await rawHttp(h.port, request(hosts(h.port))));
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/more than one Host header/) } });
  });

  test('control: one Host header is served', async () => {
    const response = parseRawResponse(await rawHttp(h.port, request([`127.0.0.1:${h.port}`])));
    expect(response.status).toBe(200);
  });
});

describe('a refused body is not read to its end', () => {
  /** Far more than the server may read of a refused body; the loop stops here if the server never closes. */
  const SEND_LIMIT = 256 * 1024 * 1024;
  /** Socket buffers on both sides hold a few MiB; what the server reads after refusing must stay near that. */
  const READ_BOUND = 32 * 1024 * 1024;
  const CHUNK = Buffer.alloc(64 * 1024, 0x20);

  beforeEach(async () => {
    h = await startModern({ maxBodyBytes: 1024 * 1024 });
  });

  /**
   * Sends the head of a POST, then writes body bytes (as chunks or raw) until the server closes the connection
   * or SEND_LIMIT is reached; returns what came back and how much was written.
   */
  async function flood(framing: 'chunked' | 'content-length'): Promise<{ response: string; written: number; closedByServer: boolean }> {
    const socket = net.connect(h.port, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const received: Buffer[] = [];
    let closedByServer = false;
    const closed = new Promise<void>((resolve) => {
      const done = () => {
        closedByServer = true;
        resolve();
      };
      socket.on('end', done);
      socket.on('close', done);
      socket.on('error', done);
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const lengthHeader = framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${SEND_LIMIT}`;
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nContent-Type: application/json\r\nAccept: ${ACCEPT_BOTH}\r\n` +
        `MCP-Protocol-Version: 2025-11-25\r\n${lengthHeader}\r\n\r\n`,
    );
    const frame = framing === 'chunked' ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
    let written = 0;
    while (!closedByServer && written < SEND_LIMIT) {
      const flushed = socket.write(frame);
      written += frame.length;
      if (!flushed) {
        await new Promise<void>((resolve) => {
          const go = () => {
            socket.off('drain', go);
            resolve();
          };
          socket.on('drain', go);
          void closed.then(go);
        });
      }
    }
    // A server that read everything may still be holding the connection open: give it a moment, then leave.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, 3000)))]);
    clearTimeout(timer);
    const wasClosedByServer = closedByServer;
    socket.destroy();
    return { response: Buffer.concat(received).toString('latin1'), written, closedByServer: wasClosedByServer };
  }

  test.each(['chunked', 'content-length'] as const)(
    'an endless %s upload past maxBodyBytes: 413 with Connection: close, and the server closes the socket early',
    async (framing) => {
      const { response, written, closedByServer } = await flood(framing);
      const parsed = parseRawResponse(response);
      expect(parsed.status).toBe(413);
      expect(parsed.headers).toMatch(/^connection: close$/im);
      expect(parsed.json).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ message: expect.stringContaining('1048576') }) });
      expect(closedByServer).toBe(true);
      expect(written).toBeLessThan(READ_BOUND);
    },
  );

  test('a small body refused for its Content-Type (415) keeps the connection: the next request on it is served', async () => {
    const connection = await RawConnection.open(h.port);
    sockets.push(connection.socket);
    const body = JSON.stringify(initializeRequest('2025-11-25', 'init'));
    // The head and half the body first: the 415 goes out before the body has arrived.
    const first = rawPost(h.port, { 'Content-Type': 'text/plain', Accept: ACCEPT_BOTH }, body);
    const split = first.length - Math.floor(body.length / 2);
    connection.write(first.slice(0, split));
    const refused = await connection.nextResponse();
    expect(refused.status).toBe(415);
    expect(refused.headers.connection).not.toBe('close');
    connection.write(first.slice(split));
    // A second request on the same socket: a 2026-07-28 tools/call, answered as one JSON body.
    const params = { name: 'echo', arguments: { text: 'still here' } };
    const call = JSON.stringify(modernBody({ id: 2, method: 'tools/call', params }));
    connection.write(rawPost(h.port, modernHeaders('tools/call', params), call));
    const served = await connection.nextResponse();
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'still here' }] } });
    expect(connection.closedByPeer).toBe(false);
  });
});
