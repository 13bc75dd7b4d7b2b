import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, idOf, type RequestId } from '../protocol/jsonrpc.js';

/**
 * Writes a JSON body with a status; the one place that serialises HTTP-level JSON. A body that cannot be serialised
 * is answered with a -32603 error instead, and the failure goes to `onUnserialisable` (a handler's fault).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>, onUnserialisable?: (error: unknown) => void): void {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    // A result that cannot be serialised (a BigInt, a cycle) still ends the request, with the request's id.
    text = JSON.stringify(errorResponse(idOf(body), -32603, `Internal error: the result could not be serialised as JSON (${(error as Error).message})`));
    onUnserialisable?.(error);
  }
  const unreadBody = mustCloseForBody(res.req, status);
  const head: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
  if (headers) Object.assign(head, headers);
  if (unreadBody) head.Connection = 'close';
  res.writeHead(status, head);
  res.end(text);
  if (unreadBody) stopReading(res);
}

/**
 * True when the answer must close the connection because of a body that has not fully arrived: Node would
 * otherwise read (and discard) whatever the client goes on sending, an endless chunked upload included, to reuse
 * the connection. A refused oversized body (413) always closes; another early answer (406, 415…) keeps the
 * connection when the body's declared length is small enough to drain.
 */
function mustCloseForBody(req: IncomingMessage | undefined, status: number): boolean {
  if (!req || req.complete) return false;
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined) return true;
  if (length === undefined || length === '0') return false;
  return status === 413 || !(Number(length) <= DRAINABLE_BODY_BYTES);
}

/** A body this small is read and dropped after an early answer, so the connection can be reused. */
const DRAINABLE_BODY_BYTES = 64 * 1024;

/**
 * Stops reading the request: Node then closes the connection once the answer is flushed (`Connection: close`),
 * without reading and discarding the rest of the body first. A client that does not take the answer is cut off
 * after `SOCKET_LINGER_MS`.
 */
function stopReading(res: ServerResponse): void {
  const req = res.req as IncomingMessage;
  // read(0) marks the body as consumed, so Node does not drain it after the response; pause() stops the socket.
  req.read(0);
  req.pause();
  res.once('finish', () => {
    setTimeout(() => req.socket?.destroy(), SOCKET_LINGER_MS).unref();
  });
}

/** How long a connection whose body was refused may drain its answer before it is destroyed. */
const SOCKET_LINGER_MS = 1000;

/** An HTTP error carrying a JSON-RPC error body (id echoed when known). */
export function sendError(res: ServerResponse, status: number, code: number, message: string, id?: RequestId | null, data?: unknown, headers?: Record<string, string>): void {
  sendJson(res, status, errorResponse(id === undefined ? null : id, code, message, data), headers);
}

export function sendAccepted(res: ServerResponse, headers?: Record<string, string>): void {
  res.writeHead(202, headers);
  res.end();
}
