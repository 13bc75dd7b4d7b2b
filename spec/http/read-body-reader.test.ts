/**
 * The body reader on a real `IncomingMessage` fed by hand: a body in several chunks, one over the limit, a client that
 * leaves mid-body, a stream error; and, since its listeners stay on a request once it has settled, that nothing a
 * request emits afterwards (a late error, its close) changes the result, calls back again, or throws.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { readJsonBody, type BodyResult } from '../../lib/http/read-body.js';

function incoming(contentLength?: number): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  if (contentLength !== undefined) req.headers['content-length'] = String(contentLength);
  return req;
}

/** Reads `req` with `readJsonBody`: `settled` is its first result; `results` keeps every call of its callback. */
function read(req: IncomingMessage, maxBytes: number): { settled: Promise<BodyResult>; results: BodyResult[] } {
  const results: BodyResult[] = [];
  const settled = new Promise<BodyResult>((resolve) =>
    readJsonBody(req, maxBytes, (result) => {
      results.push(result);
      resolve(result);
    }),
  );
  return { settled, results };
}

describe('readJsonBody', () => {
  test('a body in three chunks is parsed once; a late error and the close change nothing and do not throw', async () => {
    const req = incoming();
    const reading = read(req, 1024);
    req.push(Buffer.from('{"jsonrpc":"2.0",'));
    req.push(Buffer.from('"id":7,"method":'));
    req.push(Buffer.from('"ping"}'));
    req.push(null);
    const result = await reading.settled;
    expect(result).toEqual({ ok: true, value: { jsonrpc: '2.0', id: 7, method: 'ping' } });
    // The reader's listeners are still there: an error now is taken (no uncaught 'error'), and ignored.
    expect(req.listenerCount('error')).toBeGreaterThan(0);
    expect(() => req.emit('error', new Error('socket reset after the body'))).not.toThrow();
    req.emit('close');
    expect(reading.results).toEqual([result]);
  });

  test('past maxBytes in chunks: 413, and the request is paused (nothing more is read)', async () => {
    const req = incoming();
    const reading = read(req, 10);
    req.push(Buffer.from('{"a":"'));
    req.push(Buffer.from('0123456789"}'));
    const result = await reading.settled;
    expect(result).toMatchObject({ ok: false, status: 413, message: expect.stringContaining('maxBodyBytes') });
    expect(req.isPaused()).toBe(true);
    req.emit('close');
    expect(reading.results).toEqual([result]);
  });

  test('a declared Content-Length over maxBytes is refused at once, before anything is read', () => {
    const req = incoming(11);
    const reading = read(req, 10);
    // Called back before readJsonBody returned: nothing to wait for.
    expect(reading.results).toEqual([expect.objectContaining({ ok: false, status: 413 })]);
    expect(req.listenerCount('data')).toBe(0);
  });

  test('a body an upstream parser read (req.body, req._body) is taken at once, without reading the stream', () => {
    const req = Object.assign(incoming(), { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, _body: true });
    const reading = read(req, 1024);
    expect(reading.results).toEqual([{ ok: true, value: { jsonrpc: '2.0', id: 1, method: 'ping' } }]);
    expect(req.listenerCount('data')).toBe(0);
  });

  test('a client that leaves mid-body gets 400 (connection closed), and a later end changes nothing', async () => {
    const req = incoming();
    const reading = read(req, 1024);
    req.push(Buffer.from('{"jsonrpc":'));
    await new Promise((resolve) => setImmediate(resolve));
    req.emit('close');
    expect(await reading.settled).toMatchObject({ ok: false, status: 400, message: expect.stringContaining('closed before the request body was read') });
    req.push(Buffer.from('"2.0"}'));
    req.push(null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reading.results).toHaveLength(1);
  });

  test('a stream error mid-body gets 400 naming it', async () => {
    const req = incoming();
    const reading = read(req, 1024);
    req.push(Buffer.from('{"jsonrpc":'));
    req.emit('error', new Error('ECONNRESET'));
    expect(await reading.settled).toMatchObject({ ok: false, status: 400, message: 'Could not read the request body: ECONNRESET' });
    req.emit('close');
    expect(reading.results).toHaveLength(1);
  });

  test('invalid JSON gets 400 / parse error', async () => {
    const req = incoming();
    const reading = read(req, 1024);
    req.push(Buffer.from('{"jsonrpc":'));
    req.push(null);
    expect(await reading.settled).toMatchObject({ ok: false, status: 400, message: expect.stringContaining('Parse error') });
  });
});
