import type { ServerResponse } from 'node:http';
import { errorResponse, type RequestId } from '../protocol/jsonrpc.js';

/** Writes a JSON body with a status; the one place that serialises HTTP-level JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    // A result that cannot be serialised (a BigInt, a cycle) still ends the request, with the request's id.
    text = JSON.stringify(errorResponse(idOf(body), -32603, `Internal error: the result could not be serialised as JSON (${(error as Error).message})`));
  }
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An HTTP error carrying a JSON-RPC error body (id echoed when known). */
export function sendError(res: ServerResponse, status: number, code: number, message: string, id?: RequestId | null, data?: unknown, headers?: Record<string, string>): void {
  sendJson(res, status, errorResponse(id === undefined ? null : id, code, message, data), headers);
}

export function sendAccepted(res: ServerResponse, headers?: Record<string, string>): void {
  res.writeHead(202, headers);
  res.end();
}

/** The id of a request-shaped body, so that errors echo it; null when there is none. */
export function idOf(body: unknown): RequestId | null {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const id = (body as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
