import { z } from 'zod';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

const requestId = z.union([z.string(), z.number().int()]);
const params = z.record(z.string(), z.unknown()).optional();

/** JSON-RPC 2.0 request: `id` is a string or integer, never null (MCP forbids null ids). */
export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestId,
  method: z.string(),
  params,
});

export const JsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params,
});

export const JsonRpcResultResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestId,
  result: z.record(z.string(), z.unknown()),
});

export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestId.nullable().optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
});

/** The kinds a valid client message can be. */
export type MessageKind = 'request' | 'notification' | 'response';

export type ParsedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse };

/**
 * Validates one decoded JSON value as a JSON-RPC 2.0 message and says which kind it is.
 * Returns a human-readable reason on failure (the caller answers -32600 with it).
 */
export function parseMessage(value: unknown): ParsedMessage | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'a JSON-RPC message must be a JSON object';
  }
  const candidate = value as Record<string, unknown>;
  // Fast path for the shapes almost every request has; zod (below) decides everything else and words the error.
  if (candidate.jsonrpc === '2.0' && typeof candidate.method === 'string') {
    const params = candidate.params;
    if (params === undefined || (params !== null && typeof params === 'object' && !Array.isArray(params))) {
      if (!('id' in candidate)) return { kind: 'notification', message: candidate as unknown as JsonRpcNotification };
      const id = candidate.id;
      if (typeof id === 'string' || Number.isInteger(id)) return { kind: 'request', message: candidate as unknown as JsonRpcRequest };
    }
  }
  if ('method' in candidate) {
    if ('id' in candidate) {
      const parsed = JsonRpcRequestSchema.safeParse(candidate);
      return parsed.success ? { kind: 'request', message: candidate as unknown as JsonRpcRequest } : describe(parsed.error);
    }
    const parsed = JsonRpcNotificationSchema.safeParse(candidate);
    return parsed.success
      ? { kind: 'notification', message: candidate as unknown as JsonRpcNotification }
      : describe(parsed.error);
  }
  if ('result' in candidate) {
    const parsed = JsonRpcResultResponseSchema.safeParse(candidate);
    return parsed.success ? { kind: 'response', message: candidate as unknown as JsonRpcResponse } : describe(parsed.error);
  }
  if ('error' in candidate) {
    const parsed = JsonRpcErrorResponseSchema.safeParse(candidate);
    return parsed.success ? { kind: 'response', message: candidate as unknown as JsonRpcResponse } : describe(parsed.error);
  }
  return 'a JSON-RPC message needs "method" (request or notification) or "result"/"error" (response)';
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'message';
  return `invalid JSON-RPC message: ${where}: ${issue?.message ?? 'invalid'}`;
}

/**
 * A JSON-RPC response (a request's last message): an object with `result` or `error` and no `method`. Takes
 * anything, since a message read back from a store was not parsed by `parseMessage`.
 */
export function isResponseMessage(message: unknown): message is JsonRpcResponse {
  return typeof message === 'object' && message !== null && !('method' in message) && ('result' in message || 'error' in message);
}

export function errorResponse(id: RequestId | null | undefined, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/** The id of a request-shaped body, so that errors echo it; null when there is none. */
export function idOf(body: unknown): RequestId | null {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const id = (body as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
