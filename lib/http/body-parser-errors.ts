import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { applyCors, type ResolvedCors } from './cors.js';
import { isMcpPath, type MountedRequest } from './mount-path.js';
import { sendError } from './respond.js';

type NextFunction = (error?: unknown) => void;

/** The shape of the errors body-parser (`express.json()`) raises: an HTTP status and a `type` naming the failure. */
interface BodyParserError {
  type: string;
  status?: number;
  statusCode?: number;
  limit?: number;
  message?: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (!error || typeof error !== 'object') return false;
  const { type } = error as { type?: unknown };
  const status = (error as BodyParserError).status ?? (error as BodyParserError).statusCode;
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * An Express error handler (four arguments) for the MCP endpoint: errors a body parser mounted before the
 * middleware raised for the endpoint's path (`express.json()` refusing a body over its `limit`, or JSON it cannot
 * parse) become JSON-RPC errors, where Express would answer an HTML page. Other errors and other paths go on to
 * the app's own error handlers.
 */
export function createBodyParserErrorHandler(path: string, cors: ResolvedCors | undefined) {
  return function mcpBodyParserErrors(error: unknown, req: MountedRequest, res: ServerResponse, next: NextFunction): void {
    if (!isBodyParserError(error) || res.headersSent || !isMcpPath(req, path)) return next(error);
    const status = error.status ?? error.statusCode ?? 400;
    // The page must be able to read the error, even when mcp.cors was not mounted before the parser.
    if (cors && applyCors(req, res, cors)) return;
    switch (error.type) {
      case 'entity.parse.failed':
        return sendError(res, 400, ErrorCode.ParseError, `Parse error: the body is not valid JSON (${error.message ?? 'express.json() could not parse it'})`);
      case 'entity.too.large':
        return sendError(
          res,
          413,
          ErrorCode.ServerError,
          `Payload Too Large: the request body exceeds the ${error.limit === undefined ? '' : `${error.limit}-byte `}limit of the JSON body parser mounted before mcpMiddleware ` +
            `(express.json() allows 100kb unless told otherwise); raise it with express.json({ limit: '4mb' }), or mount mcpMiddleware before express.json()`,
        );
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return sendError(res, 415, ErrorCode.ServerError, `Unsupported Media Type: ${error.message ?? 'the body parser refused the body encoding'}`);
      default:
        return sendError(res, status, ErrorCode.ServerError, `The JSON body parser mounted before mcpMiddleware refused the request (${error.type}): ${error.message ?? ''}`.trimEnd());
    }
  };
}
