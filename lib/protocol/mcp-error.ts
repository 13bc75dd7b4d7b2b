/**
 * An error that becomes a JSON-RPC error response. Throw it from a handler to answer with that code;
 * any other thrown value becomes -32603 Internal error (tool handlers turn errors into `isError` results instead).
 */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
