import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { ToolOutputError } from '../server/tool-output-error.js';

/**
 * Turns a handler failure into a JSON-RPC error response. An `McpError` is meant for the client and keeps its
 * code, message and data. Anything else is a server fault: the client gets -32603 with a generic message (an
 * exception's text can carry internals: paths, queries, hosts) and the error itself goes to `onError`. A tool result
 * that breaks its `outputSchema` keeps its message for the client and is reported too (the server is at fault).
 */
export function toErrorResponse(request: JsonRpcRequest, error: unknown, onError: (error: unknown) => void): JsonRpcMessage {
  if (error instanceof McpError) {
    if (error instanceof ToolOutputError) onError(error);
    return errorResponse(request.id, error.code, error.message, error.data);
  }
  onError(error);
  return errorResponse(request.id, ErrorCode.InternalError, `Internal error while handling ${request.method}; the server logged the details. Throw an McpError to send a client a message of your own.`);
}
