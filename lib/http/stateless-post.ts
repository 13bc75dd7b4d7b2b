import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { checkStatelessInbound } from '../protocol/stateless-inbound.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { DEFAULT_NEGOTIATED_VERSION, PRIMING_MIN_VERSION } from '../protocol/versions.js';
import type { PersistedReply, RequestInfo } from '../session/session-manager.js';
import type { SseChannel } from '../session/sse-channel.js';
import type { SseEvent } from '../store/sse-event.js';
import { StatelessClient } from '../session/stateless-client.js';
import { header } from './headers.js';
import type { ResolvedOptions } from './options.js';
import { sendAccepted, sendError, sendJson } from './respond.js';
import { serveListen } from './subscriptions-listen.js';
import { SSE_HEADERS, writeStream } from './stream-writer.js';
import { formatStreamEvent } from './sse-format.js';
import { requestInfo } from './request-info.js';
import { reportUnserialisable, SHUTDOWN_REASON, StatelessReply } from './stateless-reply.js';
import { untilEnded, type ResponseEnded } from './response-ended.js';
import { replyShape } from './reply-shape.js';
import { refuseWithoutRequiredScopes } from '../auth/step-up.js';
import type { RequestTracking } from '../observability/observer.js';
import type { StatelessRun } from '../session/stateless-dispatcher.js';

type Req = IncomingMessage & { auth?: RequestInfo['authInfo'] };

/**
 * A POST of the stateless (2026-07-28) era: validates the envelope and the standard headers in the spec's
 * order, then serves the request with no session. `ended` is told once the reply has ended, with the error when
 * serving it failed; an answer written at once (a refusal, a notification's 202) ends it at once. A callback, not
 * a promise: the promise and its caller's `await` were promise steps of every request (bench/in-process.js counts
 * them).
 */
export function handleStatelessEraPost(req: Req, res: ServerResponse, o: ResolvedOptions, body: unknown, versionHeader: string | undefined, ended: ResponseEnded): void {
  const verdict = checkStatelessInbound(body, versionHeader, (name) => header(req, name), o.paramHeaders);
  if (!verdict.ok) {
    sendError(res, verdict.status, verdict.code, verdict.message, verdict.id, verdict.data);
    return ended();
  }
  if (verdict.kind === 'notification') {
    sendAccepted(res);
    return ended();
  }
  const { request, envelope } = verdict;
  const client = new StatelessClient(envelope.protocolVersion, envelope.clientCapabilities, envelope.clientInfo, envelope.logLevel, true);
  const info: RequestInfo = requestInfo(req, o);
  if (request.method === 'subscriptions/listen') return settle(serveListen(req, res, o, request, client), ended);
  if (refuseWithoutRequiredScopes(res, o, info, request)) return ended();
  serveStatelessRequest(res, o, request, client, true, info, ended);
}

/** A session-era POST when sessions are off (`NeverSessionManager`): served on its own, no session id (as above). */
export function handleSessionEraStateless(req: Req, res: ServerResponse, o: ResolvedOptions, message: JsonRpcMessage, versionHeader: string | undefined, ended: ResponseEnded): void {
  if (!('method' in message) || !('id' in message)) {
    sendAccepted(res);
    return ended();
  }
  const request = message as JsonRpcRequest;
  const requested = request.params?.protocolVersion;
  const version = request.method === 'initialize' ? (typeof requested === 'string' ? requested : DEFAULT_NEGOTIATED_VERSION) : (versionHeader ?? DEFAULT_NEGOTIATED_VERSION);
  const capabilities = (request.method === 'initialize' ? request.params?.capabilities : undefined) as ClientCapabilities | undefined;
  const client = new StatelessClient(
    version,
    capabilities ?? {},
    undefined,
    undefined,
    false,
    `A ${version} client needs a session for sampling, elicitation and roots requests, and this server runs without sessions; use a 2026-07-28 client, or serve 2025-era clients with a LocalSessionManager.`,
  );
  const info = requestInfo(req, o);
  if (refuseWithoutRequiredScopes(res, o, info, request)) return ended();
  serveStatelessRequest(res, o, request, client, false, info, ended);
}

/** `ended` told when `promise` settles: with nothing when it fulfils, with its error when it rejects. */
function settle(promise: Promise<void>, ended: ResponseEnded): void {
  promise.then(() => ended(), (error: unknown) => ended(error ?? new Error('Serving the request failed')));
}

function serveStatelessRequest(
  res: ServerResponse,
  o: ResolvedOptions,
  request: JsonRpcRequest,
  client: StatelessClient,
  modern: boolean,
  info: RequestInfo,
  ended: ResponseEnded,
): void {
  if (!o.observer.active) return serveStatelessReply(res, o, request, client, modern, info, undefined, ended);
  settle(serveObserved(res, o, request, client, modern, info), ended);
}

/** The same, measured and traced: `tracking` sees every message of the reply and ends with it. */
async function serveObserved(res: ServerResponse, o: ResolvedOptions, request: JsonRpcRequest, client: StatelessClient, modern: boolean, info: RequestInfo): Promise<void> {
  const tracking = o.observer.begin('stateless', request, undefined, client.protocolVersion, res.req.headers);
  try {
    await untilEnded((ended) => serveStatelessReply(res, o, request, client, modern, info, tracking, ended));
  } finally {
    tracking.end();
  }
}

/** Runs the request and writes its reply; `ended` is told once the reply has ended (or the client has left). */
function serveStatelessReply(
  res: ServerResponse,
  o: ResolvedOptions,
  request: JsonRpcRequest,
  client: StatelessClient,
  modern: boolean,
  info: RequestInfo,
  tracking: RequestTracking | undefined,
  ended: ResponseEnded,
): void {
  const primes = client.protocolVersion >= PRIMING_MIN_VERSION;
  const persisted = o.sessionManager.persistedReplies?.open(primes, info.principal, request.id);
  if (persisted) {
    // A persisted stream: stored event by event, resumable with Last-Event-ID; a disconnect does not cancel.
    // Successful replies are SSE (only a stream can be resumed); errors still answer JSON with their status.
    const run = startRun(o, request, client, modern, info, tracking, (message) => persisted.send(message));
    return settle(
      followPersisted(run, persisted, o, () => writePersistedReply(res, persisted.channel, modern, o, request, tracking)),
      ended,
    );
  }
  const reply = new StatelessReply(res, o, request, modern ? o.responseMode : o.enableJsonResponse ? 'auto' : 'sse', modern, tracking);
  reply.follow(startRun(o, request, client, modern, info, tracking, (message) => reply.emit(message)), ended);
}

/** Keeps a persisted run stoppable by `close()` until it ends, then completes its stream; `write` writes the reply. */
async function followPersisted(run: StatelessRun, persisted: PersistedReply, o: ResolvedOptions, write: () => Promise<void>): Promise<void> {
  // On close(), once the drain time is up, the handler stops (the session manager stores the error ending).
  const stoppable = { stop: () => run.ctx.abort(new Error(SHUTDOWN_REASON)) };
  const running = o.statelessRuns.add(stoppable);
  run.whenDone(() => {
    o.statelessRuns.remove(running);
    persisted.complete();
  });
  await write();
}

/** Starts the handler; when observed, inside the request's span and with every message shown to `tracking`. */
function startRun(
  o: ResolvedOptions,
  request: JsonRpcRequest,
  client: StatelessClient,
  modern: boolean,
  info: RequestInfo,
  tracking: RequestTracking | undefined,
  emit: (message: JsonRpcMessage) => Promise<void> | void,
): StatelessRun {
  if (!tracking) return o.stateless.run(request, client, modern, info, emit);
  return tracking.run(() =>
    o.stateless.run(request, client, modern, info, (message) => {
      tracking.see(message);
      return emit(message);
    }),
  );
}

/**
 * How long a persisted reply waits for its first message before it commits to SSE: long enough for an immediate
 * error to go out as JSON with its status, short enough that a slow handler's client gets the priming event (an
 * id to resume from) early.
 */
const PERSISTED_PRIMING_HOLD_MS = 50;

/** What `raceTimeout` resolves with when the time is up first. */
const TIMED_OUT = Symbol('timed out');

/**
 * Writes a persisted reply: a success is always SSE (only a stream can be resumed). Priming events are held back
 * for at most `PERSISTED_PRIMING_HOLD_MS` while the first message is awaited, so that an error answering at once
 * still goes out as JSON with its own status (`replyShape`); after that time, or once a first message that is not
 * such an error arrives, the SSE headers, the held priming events and the rest of the stream go out (an error
 * arriving later is sent on the stream).
 */
async function writePersistedReply(res: ServerResponse, channel: SseChannel, modern: boolean, o: ResolvedOptions, request: JsonRpcRequest, tracking: RequestTracking | undefined): Promise<void> {
  const held: SseEvent[] = [];
  const startSse = () => {
    res.writeHead(200, SSE_HEADERS);
    for (const event of held) res.write(formatStreamEvent(event));
  };
  // One outstanding next() at a time: the channel has a single waiter slot.
  let pending = channel.next();
  const deadline = Date.now() + PERSISTED_PRIMING_HOLD_MS;
  let next: IteratorResult<SseEvent>;
  for (;;) {
    const raced = await raceTimeout(pending, deadline - Date.now());
    if (raced === TIMED_OUT) {
      // No message yet: commit to SSE now, so the client has the priming id while the handler runs (with a delayed
      // stream lease, the headers only: the stream sends its priming event once the lease is held).
      startSse();
      if (held.length === 0) res.flushHeaders();
      return writeStream(res, channel, { keepAlive: o.keepAlive, headersSent: true, pendingNext: pending });
    }
    next = raced;
    if (next.done || next.value.message !== undefined) break;
    held.push(next.value);
    pending = channel.next();
  }
  if (next.done) {
    if (!res.headersSent) sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'The request ended without a response'));
    return;
  }
  const event = next.value;
  const message = event.message!;
  // In `sse` mode only an error with a 4xx status is JSON; nothing is dropped.
  const shape = replyShape(message, 'sse', modern);
  if (shape.kind === 'json') return sendJson(res, shape.status, message, undefined, (error) => reportUnserialisable(o, request, error, tracking));
  // SSE from here on: held priming, this first message, then the rest of the channel.
  startSse();
  res.write(formatStreamEvent(event));
  if (!('method' in message)) {
    res.end();
    return;
  }
  await writeStream(res, channel, { keepAlive: o.keepAlive, headersSent: true });
}

/** `promise`'s value, or `TIMED_OUT` when it has not settled within `ms` (it keeps running). */
async function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
