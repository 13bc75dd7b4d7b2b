import type { IncomingMessage, ServerResponse } from 'node:http';
import { MIDDLEWARE_DEFAULTS } from '../defaults.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { handleDelete } from './delete-handler.js';
import { handleGet } from './get-handler.js';
import { headerText } from './headers.js';
import { checkHostAndOrigin } from './host-guard.js';
import { resolveOptions, type DefaultSessionManagerFactory, type McpMiddlewareOptions, type ResolvedOptions } from './options.js';
import { handlePost } from './post-handler.js';
import { sendError } from './respond.js';
import { sendShuttingDown } from './shutting-down.js';
import { SessionsUnavailableError } from '../session/errors.js';
import { waitWhile } from '../session/wait-while.js';
import { createBodyParserErrorHandler } from './body-parser-errors.js';
import { applyCors, createCorsHandler } from './cors.js';
import { isMcpPath, type MountedRequest } from './mount-path.js';

type NextFunction = (error?: unknown) => void;

/**
 * The middleware `mcpMiddleware` returns: an Express request handler with a `close()` for shutdown, and two
 * companions to mount beside it: `cors` before your auth, `errorHandler` after the middleware
 * (`app.use(mcp, mcp.errorHandler)`).
 */
export interface McpRequestHandler {
  (req: IncomingMessage, res: ServerResponse, next: NextFunction): void;
  /**
   * Shuts this instance down gracefully: from now on every request (both eras) gets 503 with `Retry-After`, so a
   * load balancer's retry lands on another instance; open streams that can be resumed elsewhere (an EventStore) end
   * with a retry hint; running handlers get `drainTimeout` ms (default `10000`) to finish, after which each request
   * still running ends with a -32603 error response; then sessions, timers and bus subscriptions end. Call it on
   * SIGTERM, before closing the HTTP server.
   */
  close(options?: CloseOptions): Promise<void>;
  /**
   * Resolves once this instance receives what other instances publish on the bus (its subscriptions are active), and,
   * with `tracing`, once `@opentelemetry/api` is loaded. Rejects when the bus refused a subscription (Redis
   * unreachable at start-up): await it before listening, and let the process fail and be restarted rather than serve
   * without hearing the other instances.
   */
  ready(): Promise<void>;
  /**
   * The CORS step alone (option `cors`), for apps whose auth runs before the middleware: `app.use(mcp.cors)`
   * before the auth answers preflights and labels every answer, a 401 included. Passes requests on when the `cors`
   * option is not set.
   */
  cors(req: IncomingMessage, res: ServerResponse, next: NextFunction): void;
  /**
   * An Express error handler that answers errors of a body parser mounted before the middleware (`express.json()`
   * refusing a body over its limit, or invalid JSON) for the MCP path with JSON-RPC errors (413, 400 / -32700)
   * instead of Express's HTML page: `app.use(mcp, mcp.errorHandler)`. Other errors go on to `next(error)`.
   */
  errorHandler(error: unknown, req: IncomingMessage, res: ServerResponse, next: NextFunction): void;
}

export interface CloseOptions {
  /** Milliseconds running handlers get to finish before they are ended with an error. Defaults to `10000`. */
  drainTimeout?: number;
}

/**
 * The HTTP layer of `mcpMiddleware`: routes POST, GET and DELETE to their handlers over whatever `SessionManager`
 * it is given (it knows the interface only; `defaultSessionManager` builds the one used when the options name
 * none). Everything is built here, once; requests allocate only their own state.
 */
export function createMcpMiddleware(options: McpMiddlewareOptions, defaultSessionManager: DefaultSessionManagerFactory): McpRequestHandler {
  const o = resolveOptions(options, defaultSessionManager);
  const onUnexpected = (res: ServerResponse) => (error: unknown) => {
    if (error instanceof SessionsUnavailableError) {
      // A restore from the SessionStore found this instance full: the same answer initialize gets.
      if (!res.headersSent) return sendError(res, 503, ErrorCode.ServerError, error.message, null, undefined, { 'Retry-After': String(error.retryAfterSeconds) });
    }
    o.onError(error);
    if (!res.headersSent) {
      // No details: an unexpected error may carry internals a client must not see. They went to onError.
      sendError(res, 500, ErrorCode.InternalError, 'Internal error: the server failed to handle this request; it has been logged');
    } else {
      res.destroy(error instanceof Error ? error : undefined);
    }
  };

  const handler = function mcp(req: MountedRequest, res: ServerResponse, next: NextFunction): void {
    if (!isMcpPath(req, o.path)) return next();
    if (o.cors && applyCors(req, res, o.cors)) return;
    // Draining: another instance serves this (clients and load balancers retry on 503). A POST is answered after
    // its body is read, with the request's id.
    if (o.closing && req.method !== 'POST') return sendShuttingDown(res, null);
    if (hasRepeatedHost(req.rawHeaders)) {
      // RFC 9112 §3.2: a request with more than one Host field is invalid. Node keeps the first; we refuse it.
      return refuse(res, o, 400, 'Bad Request: the request has more than one Host header');
    }
    const verdict = checkHostAndOrigin(headerText(req.headers.host), headerText(req.headers.origin), o.guard);
    if (!verdict.ok) return refuse(res, o, verdict.status, verdict.message);
    switch (req.method) {
      case 'POST': {
        const unexpected = onUnexpected(res);
        try {
          handlePost(req, res, o, unexpected);
        } catch (error) {
          unexpected(error);
        }
        return;
      }
      case 'GET':
        handleGet(req, res, o).catch(onUnexpected(res));
        return;
      case 'DELETE':
        handleDelete(req, res, o).catch(onUnexpected(res));
        return;
      default: {
        const allow = o.sessionManager.stateful ? 'GET, POST, DELETE' : 'POST';
        sendError(res, 405, ErrorCode.ServerError, `Method Not Allowed: use ${allow}`, null, undefined, { Allow: allow });
      }
    }
  } as McpRequestHandler;
  handler.cors = createCorsHandler(o.path, o.cors);
  handler.errorHandler = createBodyParserErrorHandler(o.path, o.cors);
  let closing: Promise<void> | undefined;
  handler.close = (closeOptions: CloseOptions = {}) => {
    closing ??= (async () => {
      o.closing = true;
      o.listens.closeAll();
      const drainTimeout = closeOptions.drainTimeout ?? MIDDLEWARE_DEFAULTS.drainTimeout;
      const statelessDrained = drainStatelessRuns(o, drainTimeout);
      await o.sessionManager.drain?.(drainTimeout);
      await statelessDrained;
      await o.sessionManager.shutdown();
      await o.serverEvents.stop();
      await o.taskEvents.stop();
    })();
    return closing;
  };
  handler.ready = async () => {
    await o.observer.loaded;
    await o.serverEvents.ready();
    await o.taskEvents.ready();
    await o.sessionManager.ready?.();
  };
  return handler;
}

/**
 * Stateless requests running when `close()` was called: each gets `timeoutMs` to finish, then ends with a -32603
 * error response (its handler is aborted).
 */
async function drainStatelessRuns(o: ResolvedOptions, timeoutMs: number): Promise<void> {
  await waitWhile(() => o.statelessRuns.size > 0, timeoutMs);
  for (const run of [...o.statelessRuns.values()]) run.stop();
}

/** A request the Host/Origin checks refused: answered, and reported (a misconfigured `allowedHosts` shows up here). */
function refuse(res: ServerResponse, o: ResolvedOptions, status: number, message: string): void {
  sendError(res, status, ErrorCode.ServerError, message);
  if (o.observer.reports) o.observer.emit({ type: 'request.refused', status, message });
}

/** More than one `Host` field among the raw headers (name/value pairs). */
function hasRepeatedHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}
