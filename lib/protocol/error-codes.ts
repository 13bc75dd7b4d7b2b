/** JSON-RPC 2.0 and MCP error codes, with the spec section that names each. */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters (unknown tool, missing prompt arguments...). */
  InvalidParams: -32602,
  /** Internal JSON-RPC error. */
  InternalError: -32603,
  /** Implementation-defined server error with no spec code: bad transport headers, ended sessions (as the official SDKs use it). */
  ServerError: -32000,
  /** Session not found (de facto, from the official SDKs). */
  SessionNotFound: -32001,
  /** Resource not found, 2025 era. */
  ResourceNotFound: -32002,
  /** URL elicitation required (2025-11-25). */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: a required header is missing or differs from the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability the client did not declare. */
  MissingClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not supported. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
