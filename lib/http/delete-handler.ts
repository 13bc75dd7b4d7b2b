import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { isStatelessEraVersion } from '../protocol/versions.js';
import { SessionNotFoundError } from '../session/errors.js';
import type { RequestInfo } from '../session/session-manager.js';
import { headerText, isValidSessionId } from './headers.js';
import type { ResolvedOptions } from './options.js';
import { sendError } from './respond.js';
import { requestInfo } from './request-info.js';

type Req = IncomingMessage & { auth?: RequestInfo['authInfo'] };

/** DELETE: the client ends its session; the id answers 404 from then on. */
export async function handleDelete(req: Req, res: ServerResponse, o: ResolvedOptions): Promise<void> {
  const versionHeader = headerText(req.headers['mcp-protocol-version']);
  if (!o.sessionManager.stateful || (versionHeader !== undefined && isStatelessEraVersion(versionHeader))) {
    return sendError(res, 405, ErrorCode.ServerError, 'Method Not Allowed: this server is stateless; there is no session to delete', null, undefined, { Allow: 'POST' });
  }
  const sessionId = headerText(req.headers['mcp-session-id']);
  if (sessionId === undefined) return sendError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
  try {
    if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(sessionId);
    await o.sessionManager.closeSession(sessionId, requestInfo(req, o));
    res.writeHead(200);
    res.end();
  } catch (error) {
    if (error instanceof SessionNotFoundError) {
      return sendError(res, 404, ErrorCode.SessionNotFound, `Session not found: ${sessionId.slice(0, 64)}`);
    }
    throw error;
  }
}
