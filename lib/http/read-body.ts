import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

/**
 * The request's JSON body, parsed once, handed to `done` (exactly once). Takes `req.body` when an upstream
 * `express.json()` already parsed it; otherwise reads the stream up to `maxBytes`. Never waits on a stream that will
 * not deliver: a body another middleware consumed without setting `req.body`, or a request whose client already
 * went away, is a 400. `done` is called at once when there is nothing to read, else from the request's 'end' (or
 * 'error', 'close'). A callback, not a promise: the promise and the `await` of it were two of a call's promise
 * steps (bench/in-process.js counts them).
 */
export function readJsonBody(req: IncomingMessage & { body?: unknown; _body?: boolean }, maxBytes: number, done: (result: BodyResult) => void): void {
  // A declared length over the limit is refused before an upstream parser's result is taken. This covers bodies
  // parsed by express.json() only when they came with Content-Length: a chunked body an upstream parser already
  // read cannot be measured here (its own `limit` applies then).
  const declared = Number(req.headers['content-length']);
  // The answer closes the connection (see sendJson): nothing more of the body is read.
  if (declared > maxBytes) return done(tooLarge(maxBytes));
  if (req._body === true || (req.readableEnded && req.body !== undefined)) return done({ ok: true, value: req.body });
  // `req.complete` alone says nothing here: it is true as soon as the whole body has arrived, read or not.
  if (req.readableEnded || req.readableDidRead) {
    return done({
      ok: false,
      status: 400,
      message: 'Bad Request: the request body was already consumed by another middleware, which did not set req.body; mount this middleware before it, or parse JSON with express.json()',
    });
  }
  if (req.destroyed) return done(aborted());
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  // The listeners stay on the request once it settled (they do nothing then): a request is read once, and taking
  // four listeners off cost 0.2-0.4 us of each call's 10-11 in process. The chunks are let go at once.
  const finish = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    chunks.length = 0;
    done(result);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      chunks.length = 0;
      req.pause();
      finish(tooLarge(maxBytes));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    let result: BodyResult;
    try {
      result = { ok: true, value: JSON.parse(text) };
    } catch (error) {
      result = { ok: false, status: 400, message: `Parse error: the body is not valid JSON (${(error as Error).message})` };
    }
    finish(result);
  };
  const onError = (error: Error) => finish({ ok: false, status: 400, message: `Could not read the request body: ${error.message}` });
  // 'close' comes after 'end' for a complete body; before it only when the client went away mid-body.
  const onClose = () => finish(aborted());
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
}

function aborted(): BodyResult {
  return { ok: false, status: 400, message: 'Bad Request: the connection closed before the request body was read' };
}

function tooLarge(maxBytes: number): BodyResult {
  return { ok: false, status: 413, message: `Payload Too Large: the request body exceeds ${maxBytes} bytes (option maxBodyBytes)` };
}
