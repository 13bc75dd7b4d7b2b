import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { idOf, parseMessage, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { describeValue } from '../protocol/safe-text.js';
import { classifyEra } from '../protocol/era.js';
import { BATCH_VERSION, DEFAULT_NEGOTIATED_VERSION, isSessionEraVersion, SESSION_ERA_VERSIONS } from '../protocol/versions.js';
import { SessionNotFoundError, SessionsUnavailableError } from '../session/errors.js';
import { immediateStreamsOf } from '../session/immediate-streams.js';
import type { RequestInfo } from '../session/session-manager.js';
import type { SseEvent, SseStream } from '../store/sse-event.js';
import { acceptsJsonAndSse, headerText, isJsonContentType, isValidSessionId } from './headers.js';
import type { ResolvedOptions } from './options.js';
import { readJsonBody, type BodyResult } from './read-body.js';
import { replyShape } from './reply-shape.js';
import { sendShuttingDown } from './shutting-down.js';
import { sendAccepted, sendError, sendJson } from './respond.js';
import { handleSessionEraStateless, handleStatelessEraPost } from './stateless-post.js';
import type { ResponseEnded } from './response-ended.js';
import { onResponseClose } from './response-close.js';
import { formatStreamEvent } from './sse-format.js';
import { followStream, SSE_HEADERS, writeStream } from './stream-writer.js';
import { requestInfo } from './request-info.js';
import { refuseWithoutRequiredScopes } from '../auth/step-up.js';
import type { RequestTracking } from '../observability/observer.js';

type Req = IncomingMessage & { body?: unknown; _body?: boolean; auth?: RequestInfo['authInfo'] };

/**
 * A POST: its headers checked, its body read, then `handleBody`. An error the handling throws (or a promise of it
 * rejects with) goes to `onUnexpected`, the middleware's last resort.
 */
export function handlePost(req: Req, res: ServerResponse, o: ResolvedOptions, onUnexpected: (error: unknown) => void): void {
  if (!acceptsJsonAndSse(headerText(req.headers.accept))) {
    return sendError(res, 406, ErrorCode.ServerError, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
  }
  if (!isJsonContentType(headerText(req.headers['content-type']))) {
    return sendError(res, 415, ErrorCode.ServerError, 'Unsupported Media Type: Content-Type must be application/json');
  }
  readJsonBody(req, o.maxBodyBytes, (bodyResult) => handleBody(req, res, o, bodyResult, onUnexpected));
}

/**
 * A POST whose body has been read (or refused): refused, served as a stateless (2026-07-28) request, or handed to
 * the session era. Not `async`: the stateless era is served with callbacks, so its requests make no promise here.
 */
function handleBody(req: Req, res: ServerResponse, o: ResolvedOptions, bodyResult: BodyResult, onUnexpected: (error: unknown) => void): void {
  try {
    if (!bodyResult.ok) {
      return sendError(res, bodyResult.status, bodyResult.status === 413 ? ErrorCode.ServerError : ErrorCode.ParseError, bodyResult.message);
    }
    const body = bodyResult.value;
    if (o.closing) return sendShuttingDown(res, idOf(body));
    const versionHeader = headerText(req.headers['mcp-protocol-version']);
    const sessionId = headerText(req.headers['mcp-session-id']);
    // A stateless server ignores Mcp-Session-Id when it classifies (spec: never mint or echo one).
    if (classifyEra(body, versionHeader, o.sessionManager.stateful ? sessionId : undefined) === 'stateless') {
      return handleStatelessEraPost(req, res, o, body, versionHeader, failuresTo(onUnexpected));
    }
    handleSessionEraBody(req, res, o, body, versionHeader, sessionId, onUnexpected)?.catch(onUnexpected);
  } catch (error) {
    onUnexpected(error);
  }
}

/** A reply's `ended` callback that passes a failure on to `onUnexpected` (an ending without one needs nothing). */
function failuresTo(onUnexpected: (error: unknown) => void): ResponseEnded {
  return (error) => {
    if (error !== undefined) onUnexpected(error);
  };
}

/**
 * A session-era message (2025-03-26 … 2025-11-25): checked, then served in its session (or on its own, sessions
 * off). Not `async`: a request in a session this process holds is written without awaiting its stream (see
 * `ImmediateStreams`) and followed with callbacks (`followStream`); whatever has to wait returns the promise of
 * its work.
 */
function handleSessionEraBody(
  req: Req,
  res: ServerResponse,
  o: ResolvedOptions,
  body: unknown,
  versionHeader: string | undefined,
  sessionId: string | undefined,
  onUnexpected: (error: unknown) => void,
): Promise<void> | void {
  if (versionHeader !== undefined && !isSessionEraVersion(versionHeader)) {
    return sendError(
      res,
      400,
      ErrorCode.ServerError,
      `Bad Request: unsupported MCP-Protocol-Version "${versionHeader}"; this server supports ${SESSION_ERA_VERSIONS.join(', ')}`,
      idOf(body),
    );
  }
  const info: RequestInfo = requestInfo(req, o);
  if (Array.isArray(body)) {
    if (!o.sessionManager.stateful) return sendError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: this server is stateless and takes one message per POST, not a batch');
    return handleBatch(res, o, body, sessionId, versionHeader, info);
  }

  const parsed = parseMessage(body);
  if (typeof parsed === 'string') return sendError(res, 400, ErrorCode.InvalidRequest, `Invalid Request: ${parsed}`, idOf(body));
  if (!o.sessionManager.stateful) return handleSessionEraStateless(req, res, o, parsed.message, versionHeader, failuresTo(onUnexpected));

  if (parsed.kind === 'request' && parsed.message.method === 'initialize') {
    return initialize(res, o, parsed.message, sessionId, versionHeader, info);
  }
  if (sessionId === undefined) {
    return sendError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one', idOf(body));
  }
  if (!isValidSessionId(sessionId)) return sessionNotFound(res, sessionId, idOf(body));
  if (parsed.kind !== 'request') return orSessionNotFound(accept(res, o, sessionId, parsed.message, info), res, sessionId, idOf(body));
  const request = parsed.message;
  if (refuseWithoutRequiredScopes(res, o, info, request)) return;
  if (o.observer.active) return orSessionNotFound(observedRequest(req, res, o, sessionId, request, versionHeader, info), res, sessionId, request.id);
  let stream: SseStream | undefined;
  try {
    stream = immediateStreamsOf(o.sessionManager)?.createStreamNow(sessionId, request, info);
  } catch (error) {
    return answerSessionNotFound(error, res, sessionId, request.id);
  }
  if (stream) return followStream(res, stream, { keepAlive: o.keepAlive, preferJson: o.enableJsonResponse }, failuresTo(onUnexpected));
  return orSessionNotFound(createAndWrite(res, o, sessionId, request, info), res, sessionId, request.id);
}

/** `served`, with a session that is not there (expired, deleted, another principal's) answered 404. */
function orSessionNotFound(served: Promise<void>, res: ServerResponse, sessionId: string, id: JsonRpcRequest['id'] | null | undefined): Promise<void> {
  return served.catch((error: unknown) => answerSessionNotFound(error, res, sessionId, id));
}

/** A session request through the manager's `createStream` (a session to restore, or a manager of its own kind). */
async function createAndWrite(res: ServerResponse, o: ResolvedOptions, sessionId: string, request: JsonRpcRequest, info: RequestInfo): Promise<void> {
  const stream = await o.sessionManager.createStream(sessionId, request, info);
  await writeStream(res, stream, { keepAlive: o.keepAlive, preferJson: o.enableJsonResponse });
}

/** A client notification or response in its session: 202 once the manager has taken it. */
async function accept(res: ServerResponse, o: ResolvedOptions, sessionId: string, message: JsonRpcMessage, info: RequestInfo): Promise<void> {
  await o.sessionManager.acceptMessage(sessionId, message, info);
  sendAccepted(res);
}

/** A session request under observation (`onEvent`, `tracing`): the same steps, measured and traced. */
async function observedRequest(req: Req, res: ServerResponse, o: ResolvedOptions, sessionId: string, request: JsonRpcRequest, versionHeader: string | undefined, info: RequestInfo): Promise<void> {
  const tracking = o.observer.begin('session', request, sessionId, o.sessionManager.protocolVersionOf(sessionId) ?? versionHeader, req.headers);
  try {
    const stream = await tracking.run(() => o.sessionManager.createStream(sessionId, request, info));
    await writeStream(res, tracking.watch(stream), { keepAlive: o.keepAlive, preferJson: o.enableJsonResponse });
  } catch (error) {
    tracking.failed(errorCodeOf(error));
    throw error;
  } finally {
    tracking.end();
  }
}

/** The JSON-RPC code the client gets for an error the HTTP layer answers (see the catch blocks and `onUnexpected`). */
function errorCodeOf(error: unknown): number {
  if (error instanceof McpError) return error.code;
  if (error instanceof SessionNotFoundError) return ErrorCode.SessionNotFound;
  if (error instanceof SessionsUnavailableError) return ErrorCode.ServerError;
  return ErrorCode.InternalError;
}

async function initialize(
  res: ServerResponse,
  o: ResolvedOptions,
  request: JsonRpcRequest,
  sessionId: string | undefined,
  versionHeader: string | undefined,
  info: RequestInfo,
): Promise<void> {
  if (sessionId !== undefined) {
    return sendError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: initialize starts a new session; send it without an Mcp-Session-Id header', request.id);
  }
  const requested = request.params?.protocolVersion;
  if (versionHeader !== undefined && versionHeader !== requested) {
    return sendError(
      res,
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: MCP-Protocol-Version header (${versionHeader}) does not match initialize params.protocolVersion (${describeValue(requested)})`,
      request.id,
    );
  }
  const tracking = o.observer.active ? o.observer.begin('session', request, undefined, typeof requested === 'string' ? requested : undefined, res.req.headers) : undefined;
  try {
    const created = await (tracking ? tracking.run(() => o.sessionManager.initializeSession(request, info)) : o.sessionManager.initializeSession(request, info));
    if (tracking) tracking.sessionId = created.sessionId;
    await writeStream(res, tracking ? tracking.watch(created.stream) : created.stream, { keepAlive: o.keepAlive, preferJson: o.enableJsonResponse, headers: { 'Mcp-Session-Id': created.sessionId } });
  } catch (error) {
    tracking?.failed(errorCodeOf(error));
    if (error instanceof McpError) return sendError(res, 400, error.code, error.message, request.id, error.data);
    if (error instanceof SessionsUnavailableError) return sendError(res, 503, ErrorCode.ServerError, error.message, request.id, undefined, { 'Retry-After': String(error.retryAfterSeconds) });
    throw error;
  } finally {
    tracking?.end();
  }
}

/** JSON-RPC batches: only 2025-03-26 allowed them (removed in 2025-06-18). */
async function handleBatch(
  res: ServerResponse,
  o: ResolvedOptions,
  batch: unknown[],
  sessionId: string | undefined,
  versionHeader: string | undefined,
  info: RequestInfo,
): Promise<void> {
  // The negotiated version wins over the header: a 2025-06-18 session must not get batches by claiming 2025-03-26.
  // Restore first (if this instance does not hold the session yet), so that the negotiated version is known.
  if (sessionId !== undefined && isValidSessionId(sessionId)) await o.sessionManager.hasSession(sessionId, info);
  const version = (sessionId !== undefined ? o.sessionManager.protocolVersionOf(sessionId) : undefined) ?? versionHeader ?? DEFAULT_NEGOTIATED_VERSION;
  if (version !== BATCH_VERSION) {
    return sendError(res, 400, ErrorCode.InvalidRequest, `Invalid Request: JSON-RPC batches are only accepted from clients that negotiated 2025-03-26 (this one uses ${version}); send one message per POST`);
  }
  if (batch.length === 0) return sendError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
  const messages: JsonRpcMessage[] = [];
  for (const item of batch) {
    const parsed = parseMessage(item);
    if (typeof parsed === 'string') return sendError(res, 400, ErrorCode.InvalidRequest, `Invalid Request: batch item: ${parsed}`, idOf(item));
    if (parsed.kind === 'request' && parsed.message.method === 'initialize') {
      return sendError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must not be part of a batch', parsed.message.id);
    }
    messages.push(parsed.message);
  }
  if (sessionId === undefined) return sendError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one');
  if (!isValidSessionId(sessionId)) return sessionNotFound(res, sessionId);
  for (const message of messages) if ('method' in message && 'id' in message && refuseWithoutRequiredScopes(res, o, info, message)) return;
  const trackings: RequestTracking[] = [];
  try {
    const streams: SseStream[] = [];
    for (const message of messages) {
      if (!('method' in message && 'id' in message)) await o.sessionManager.acceptMessage(sessionId, message, info);
      else if (!o.observer.active) streams.push(await o.sessionManager.createStream(sessionId, message, info));
      else {
        const tracking = o.observer.begin('session', message, sessionId, version, res.req.headers);
        trackings.push(tracking);
        streams.push(tracking.watch(await tracking.run(() => o.sessionManager.createStream(sessionId, message, info))));
      }
    }
    if (streams.length === 0) return sendAccepted(res);
    if (o.enableJsonResponse) return await writeBatchPreferJson(res, o, concat(streams));
    await writeStream(res, concat(streams), { keepAlive: o.keepAlive });
  } catch (error) {
    for (const tracking of trackings) tracking.failed(errorCodeOf(error));
    answerSessionNotFound(error, res, sessionId);
  } finally {
    for (const tracking of trackings) tracking.end();
  }
}

/**
 * A batch in `enableJsonResponse` mode: one JSON array of the responses while only responses come. The first
 * request or notification (e.g. a `sampling/createMessage` a tool sends, which the client must see to answer)
 * switches to SSE: the headers, the events collected so far, that message, then the rest of the streams.
 */
async function writeBatchPreferJson(res: ServerResponse, o: ResolvedOptions, merged: AsyncIterableIterator<SseEvent>): Promise<void> {
  const collected: SseEvent[] = [];
  let gone = false;
  const onGone = () => {
    gone = true;
    void merged.return?.(undefined);
  };
  onResponseClose(res, onGone);
  try {
    for (;;) {
      const next = await merged.next();
      if (next.done || gone) break;
      const event = next.value;
      if (event.message === undefined || replyShape(event.message, 'auto', false).kind === 'json') {
        collected.push(event); // a response (or a priming event, kept for its id should this become SSE)
        continue;
      }
      res.off('close', onGone); // writeStream watches the connection from here
      res.writeHead(200, SSE_HEADERS);
      for (const earlier of collected) res.write(formatStreamEvent(earlier));
      res.write(formatStreamEvent(event));
      return await writeStream(res, merged, { keepAlive: o.keepAlive, headersSent: true });
    }
  } catch (error) {
    void merged.return?.(undefined);
    throw error;
  } finally {
    res.off('close', onGone);
  }
  if (gone) return;
  sendJson(res, 200, collected.flatMap((event) => (event.message === undefined ? [] : [event.message])));
}

/**
 * The streams of a batch, one after the other. Hand-written rather than an async generator: a generator's
 * `return()` waits behind a pending `next()`, so a client that leaves would stay attached to the batch's streams
 * (and keep its session busy) until their next event. Here `return()` detaches every stream at once.
 */
function concat(streams: SseStream[]): AsyncIterableIterator<SseEvent> {
  const iterators = streams.map((stream) => stream[Symbol.asyncIterator]());
  let current = 0;
  const done: IteratorResult<SseEvent> = { value: undefined, done: true };
  return {
    async next() {
      while (current < iterators.length) {
        const next = await iterators[current].next();
        if (!next.done) return next;
        current++;
      }
      return done;
    },
    async return() {
      current = iterators.length;
      await Promise.all(iterators.map((iterator) => iterator.return?.()));
      return done;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** A `SessionNotFoundError` answered 404; any other error thrown on. */
function answerSessionNotFound(error: unknown, res: ServerResponse, sessionId: string, id?: JsonRpcRequest['id'] | null): void {
  if (error instanceof SessionNotFoundError) return sessionNotFound(res, sessionId, id);
  throw error;
}

function sessionNotFound(res: ServerResponse, sessionId: string, id?: JsonRpcRequest['id'] | null): void {
  sendError(res, 404, ErrorCode.SessionNotFound, `Session not found: ${sessionId.slice(0, 64)}. It expired or was deleted; send initialize to start a new one.`, id);
}

