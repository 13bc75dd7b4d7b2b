import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';

/** Turns a handler failure into a JSON-RPC error response: McpErrors keep their code, anything else is -32603. */
export function toErrorResponse(request: JsonRpcRequest, error: unknown, onError: (error: unknown) => void): JsonRpcMessage {
  if (error instanceof McpError) return errorResponse(request.id, error.code, error.message, error.data);
  onError(error);
  const message = error instanceof Error ? error.message : String(error);
  return errorResponse(request.id, ErrorCode.InternalError, `Internal error while handling ${request.method}: ${message}`);
}
