import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';

/**
 * A tool's result broke its own `outputSchema` (or left out `structuredContent`): the client gets -32603 with this
 * message, and since the fault is the server's, the error also goes to `onError`.
 */
export class ToolOutputError extends McpError {
  constructor(message: string) {
    super(ErrorCode.InternalError, message);
    this.name = 'ToolOutputError';
  }
}
