/**
 * Shared pieces of the hardening specs: a value whose `String()` throws, an error log to hand to `onError`, and
 * a raw HTTP/1.1 reader for tests that drive a socket themselves (several responses on one connection).
 */
import net from 'node:net';

/** A JSON value whose `String()` (and template literal) throws: `{"toString":1}`. */
export const UNRENDERABLE: Record<string, unknown> = Object.freeze({ toString: 1 });

/** What an `onError` option received, in order. */
export class ErrorLog {
  readonly errors: unknown[] = [];
  readonly onError = (error: unknown): void => {
    this.errors.push(error);
  };
}

/** One HTTP/1.1 response read off a raw socket (Content-Length bodies only). */
export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated ones joined with ', '. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A client socket that reads HTTP/1.1 responses one after another, so a test can send a second request on the
 * same connection and see whether the server closed it.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  /** True once the server ended or reset the connection (or it failed). */
  closedByPeer = false;
  readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    const closed = () => {
      this.closedByPeer = true;
      this.wake();
    };
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', closed);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next complete response (waits for its headers and its Content-Length body). */
  async nextResponse(timeoutMs = 5000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.tryParse();
      if (parsed) return parsed;
      if (this.closedByPeer) throw new Error(`the connection closed before a complete response; received: ${this.buffer.toString('latin1')}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no complete response within ${timeoutMs} ms; received: ${this.buffer.toString('latin1')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private tryParse(): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body };
  }
}

/** A raw HTTP/1.1 POST /mcp with a JSON body and Content-Length; `headers` are added as given. */
export function rawPost(port: number, headers: Record<string, string>, body: string): string {
  const lines = [`POST /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
