import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { ErrorCode } from '../protocol/error-codes.js';

/** How a request wants its reply: one JSON body when it can be (`auto`), always a stream (`sse`), or JSON only. */
export type ReplyMode = 'auto' | 'sse' | 'json';

/** The shape of a reply, decided from its first message. */
export type ReplyShape = { kind: 'json'; status: number } | { kind: 'sse' } | { kind: 'drop' };

const SSE: ReplyShape = { kind: 'sse' };
const DROP: ReplyShape = { kind: 'drop' };

/**
 * The one decision between a JSON body and an SSE stream, made from a reply's first message: a final response is
 * one JSON body (with its status: 2026-07-28 maps JSON-RPC errors to HTTP statuses, 2025-era clients get 200 with
 * the error inside) unless the mode is `sse` and the status 200; a notification or request first makes the reply a
 * stream, except in `json` mode, which drops it and waits for the response.
 */
export function replyShape(message: JsonRpcMessage, mode: ReplyMode, modern: boolean): ReplyShape {
  if ('method' in message) return mode === 'json' ? DROP : SSE;
  const status = modern && 'error' in message ? statusForErrorCode(message.error.code) : 200;
  return mode !== 'sse' || status !== 200 ? { kind: 'json', status } : SSE;
}

/** HTTP status of a JSON-RPC error on the 2026-07-28 wire (spec basic/transports, error table). */
export function statusForErrorCode(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.InvalidParams:
    case ErrorCode.InvalidRequest:
    case ErrorCode.ParseError:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}
