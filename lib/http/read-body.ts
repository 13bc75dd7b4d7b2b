import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

/**
 * The request's JSON body, parsed once. Takes `req.body` when an upstream `express.json()` already parsed it;
 * otherwise reads the stream up to `maxBytes`.
 */
export function readJsonBody(req: IncomingMessage & { body?: unknown; _body?: boolean }, maxBytes: number): Promise<BodyResult> | BodyResult {
  // Checked before taking an upstream parser's result, so maxBodyBytes holds even when express.json() allows more.
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) {
    req.resume();
    return tooLarge(maxBytes);
  }
  if (req._body === true || (req.readableEnded && req.body !== undefined)) return { ok: true, value: req.body };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        req.resume();
        finish(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        finish({ ok: true, value: JSON.parse(text) });
      } catch (error) {
        finish({ ok: false, status: 400, message: `Parse error: the body is not valid JSON (${(error as Error).message})` });
      }
    };
    const onError = (error: Error) => finish({ ok: false, status: 400, message: `Could not read the request body: ${error.message}` });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function tooLarge(maxBytes: number): BodyResult {
  return { ok: false, status: 413, message: `Payload Too Large: the request body exceeds ${maxBytes} bytes (option maxBodyBytes)` };
}
