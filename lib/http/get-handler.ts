import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { isSessionEraVersion, isStatelessEraVersion, SESSION_ERA_VERSIONS } from '../protocol/versions.js';
import { SessionNotFoundError } from '../session/errors.js';
import type { RequestInfo } from '../session/session-manager.js';
import { acceptsSse, headerText, isValidSessionId } from './headers.js';
import type { ResolvedOptions } from './options.js';
import { sendError } from './respond.js';
import { writeStream } from './stream-writer.js';
import { requestInfo } from './request-info.js';

type Req = IncomingMessage & { auth?: RequestInfo['authInfo'] };

/** GET: the session's standalone stream, or with `Last-Event-ID` the resumption of any of its streams. */
export async function handleGet(req: Req, res: ServerResponse, o: ResolvedOptions): Promise<void> {
  const versionHeader = headerText(req.headers['mcp-protocol-version']);
  const lastEventId = headerText(req.headers['last-event-id']);
  if (!o.sessionManager.stateful || (versionHeader !== undefined && isStatelessEraVersion(versionHeader))) {
    const persistedReplies = o.sessionManager.persistedReplies;
    if (persistedReplies && lastEventId !== undefined) {
      // Replay of a persisted stateless stream, on any instance, with no session.
      if (o.observer.reports) o.observer.emit({ type: 'stream.resumed', era: 'stateless', lastEventId });
      return writeStream(res, persistedReplies.resume(lastEventId, o.principalOf(req)), { keepAlive: o.keepAlive, flushHeaders: true });
    }
    return sendError(res, 405, ErrorCode.ServerError, 'Method Not Allowed: there is no stream to GET without a session; send requests with POST', null, undefined, { Allow: 'POST' });
  }
  if (!acceptsSse(headerText(req.headers.accept))) {
    return sendError(res, 406, ErrorCode.ServerError, 'Not Acceptable: the Accept header must list text/event-stream');
  }
  if (versionHeader !== undefined && !isSessionEraVersion(versionHeader)) {
    return sendError(res, 400, ErrorCode.ServerError, `Bad Request: unsupported MCP-Protocol-Version "${versionHeader}"; this server supports ${SESSION_ERA_VERSIONS.join(', ')}`);
  }
  const sessionId = headerText(req.headers['mcp-session-id']);
  if (sessionId === undefined) return sendError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
  const info: RequestInfo = requestInfo(req, o);
  try {
    if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(sessionId);
    const stream = lastEventId !== undefined
      ? await o.sessionManager.resume(sessionId, lastEventId, info)
      : await o.sessionManager.createStandaloneStream(sessionId, info);
    if (lastEventId !== undefined && o.observer.reports) o.observer.emit({ type: 'stream.resumed', era: 'session', sessionId, lastEventId });
    await writeStream(res, stream, { keepAlive: o.keepAlive, flushHeaders: true });
  } catch (error) {
    if (error instanceof SessionNotFoundError) {
      return sendError(res, 404, ErrorCode.SessionNotFound, `Session not found: ${sessionId.slice(0, 64)}. Send initialize to start a new one.`);
    }
    throw error;
  }
}
