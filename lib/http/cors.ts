import type { ServerResponse } from 'node:http';
import { CORS_DEFAULTS } from '../defaults.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { headerText } from './headers.js';
import { isMcpPath, type MountedRequest } from './mount-path.js';
import { sendError } from './respond.js';

type NextFunction = (error?: unknown) => void;

/** The `cors` option of `mcpMiddleware`: which browser origins may call the MCP endpoint from another origin. */
export interface McpCorsOptions {
  /**
   * Exact origins (`https://app.example.com`, scheme and host, port when not the default) whose pages may call
   * the endpoint. They are also allowed by the Origin check (`allowedOrigins`). Required.
   */
  origins: string[];
  /** Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`). Defaults to `7200` (Chromium's cap). */
  maxAge?: number;
  /**
   * Answer with `Access-Control-Allow-Credentials: true`, for pages that send cookies (`credentials: 'include'`).
   * Bearer tokens do not need it. Defaults to `false`.
   */
  credentials?: boolean;
}

/**
 * Response headers a page may read: the session id, the negotiated version, the OAuth challenge (with its
 * `resource_metadata`) and the retry hint of 503s. The 2026-07-28 era adds no response headers of its own.
 */
export const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After';

/**
 * Request headers MCP clients send, answered when a preflight names none. A preflight that names its headers gets
 * them back: `Mcp-Param-*` names vary per tool, so they cannot be listed ahead.
 */
export const CORS_ALLOWED_HEADERS =
  'Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name';

export interface ResolvedCors {
  origins: readonly string[];
  maxAge: number;
  credentials: boolean;
}

/** Checks the `cors` option; origins lower-cased without a trailing `/`. */
export function resolveCors(cors: McpCorsOptions | undefined): ResolvedCors | undefined {
  if (cors === undefined) return undefined;
  if (!cors || !Array.isArray(cors.origins) || cors.origins.length === 0 || cors.origins.some((origin) => typeof origin !== 'string' || !/^https?:\/\/[^/]+\/?$/i.test(origin.trim()))) {
    throw new TypeError("cors.origins must list the exact origins allowed to call the endpoint, e.g. cors: { origins: ['https://app.example.com'] }.");
  }
  const maxAge = cors.maxAge ?? CORS_DEFAULTS.maxAge;
  if (!(Number.isInteger(maxAge) && maxAge >= 0)) throw new TypeError(`cors.maxAge must be a whole number of seconds (got ${String(maxAge)}).`);
  return {
    origins: cors.origins.map((origin) => origin.trim().toLowerCase().replace(/\/$/, '')),
    maxAge,
    credentials: cors.credentials ?? CORS_DEFAULTS.credentials,
  };
}

/**
 * Applies CORS to a request for the MCP endpoint: a response to an allowed origin says so and exposes the MCP
 * headers; a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered here, 204 for an allowed origin,
 * 403 for another. Returns true when the request has been answered.
 */
export function applyCors(req: MountedRequest, res: ServerResponse, cors: ResolvedCors): boolean {
  const origin = headerText(req.headers.origin);
  const preflight = req.method === 'OPTIONS' && headerText(req.headers['access-control-request-method']) !== undefined;
  if (origin === undefined) return false;
  const allowed = cors.origins.includes(origin.toLowerCase());
  res.setHeader('Vary', appendVary(res.getHeader('Vary'), preflight ? 'Origin, Access-Control-Request-Headers' : 'Origin'));
  if (!allowed) {
    if (!preflight) return false;
    sendError(res, 403, ErrorCode.ServerError, `Forbidden: Origin "${origin}" is not allowed to call this endpoint from a browser. Add it to the cors.origins option of mcpMiddleware.`);
    return true;
  }
  res.setHeader('Access-Control-Allow-Origin', origin);
  if (cors.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
  if (!preflight) {
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    return false;
  }
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, DELETE',
    'Access-Control-Allow-Headers': headerText(req.headers['access-control-request-headers']) ?? CORS_ALLOWED_HEADERS,
    'Access-Control-Max-Age': String(cors.maxAge),
    'Content-Length': '0',
  });
  res.end();
  return true;
}

/**
 * The separately mountable CORS step of the middleware, for apps whose auth runs before it: mounted first
 * (`app.use(mcp.cors)`), it answers preflights before auth would refuse them (a preflight carries no token) and
 * puts the CORS headers on every answer for the endpoint, a 401 included, so the page can read `WWW-Authenticate`.
 * Without the `cors` option it only passes requests on.
 */
export function createCorsHandler(path: string, cors: ResolvedCors | undefined) {
  return function mcpCors(req: MountedRequest, res: ServerResponse, next: NextFunction): void {
    if (cors && isMcpPath(req, path) && applyCors(req, res, cors)) return;
    next();
  };
}

function appendVary(current: number | string | string[] | undefined, names: string): string {
  const existing = current === undefined ? '' : Array.isArray(current) ? current.join(', ') : String(current);
  const have = new Set(existing.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean));
  const added = names.split(', ').filter((name) => !have.has(name.toLowerCase()));
  return [existing, ...added].filter(Boolean).join(', ');
}
