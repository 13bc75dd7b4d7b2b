import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { RequestTracking } from '../observability/observer.js';
import { SseChannel, type SseChannelOwner } from '../session/sse-channel.js';
import type { StatelessRun } from '../session/stateless-dispatcher.js';
import type { ResolvedOptions } from './options.js';
import { replyShape, type ReplyMode } from './reply-shape.js';
import { sendJson } from './respond.js';
import { onResponseClose } from './response-close.js';
import type { ResponseEnded } from './response-ended.js';
import { formatStreamEvent } from './sse-format.js';
import { followStream, SSE_HEADERS } from './stream-writer.js';
import type { RecencyNode } from '../store/recency-list.js';

/** Why a stateless request still running when a drain ended was stopped. */
export const SHUTDOWN_REASON = 'the server instance handling this request shut down before it finished';

/**
 * The reply to a stateless request whose stream is not persisted (not resumable), shaped by its first message as
 * `replyShape` says. A final response first is one JSON body, written the moment the handler emits it. Anything
 * else makes the reply an SSE stream: the first message is written with the headers, and what follows goes
 * through an `SseChannel` (bounded by `maxBufferedBytesPerStream`) made only then. So the usual reply, one JSON
 * body, needs no channel and no writer of its own.
 *
 * A disconnect before the end cancels the handler (2026-07-28); `close()` ends a reply still running with a -32603
 * error response (`stop`).
 *
 * The reply keeps no closure of its own making that points back at it (its close listener is a bound method): with
 * such closures in its fields, V8 kept whole finished requests alive through minor collections in the in-process
 * bench, each promoted and freed only by a full collection (docs/benchmarks.md, "Collections that churn, closures kept on a request").
 */
export class StatelessReply implements SseChannelOwner {
  /** The stream's channel, once the reply is SSE and has more to send than its first message. */
  private channel: SseChannel | undefined;
  /** The reply has ended: written in full (JSON, or SSE ending with its first message), or the client left. */
  private ended = false;
  private run: StatelessRun | undefined;
  /** An abort asked for before the run was handed over (a handler overflowing its stream synchronously). */
  private abortBeforeRun: Error | undefined;
  /** `clientLeft`, bound: the response's 'close' listener while the reply is followed. */
  private closeListener: (() => void) | undefined;
  /** Its entry in `statelessRuns`, while the handler runs. */
  private running: RecencyNode<{ stop(): void }> | undefined;
  /** What `follow` was given: told once the reply has ended. */
  private whenEnded: ResponseEnded | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly o: ResolvedOptions,
    private readonly request: JsonRpcRequest,
    private readonly mode: ReplyMode,
    private readonly modern: boolean,
    private readonly tracking: RequestTracking | undefined,
  ) {}

  /**
   * Takes the handler's run (started with `emit`); calls `ended` once the reply has ended or the client has left,
   * with the error when writing the reply failed. A callback, not a promise: the promise and its caller's `await`
   * were two of a call's promise steps (bench/in-process.js counts them).
   */
  follow(run: StatelessRun, ended: ResponseEnded): void {
    this.run = run;
    if (this.abortBeforeRun) run.ctx.abort(this.abortBeforeRun);
    this.running = this.o.statelessRuns.add(this);
    // At once when the run has ended already (a method answered without waiting): `ended` is then told below.
    run.whenDone(this.runEnded.bind(this));
    if (this.ended) return ended();
    this.whenEnded = ended;
    // Cancels at once when the client already left (e.g. while an upstream middleware awaited); `finish` takes the
    // listener off.
    onResponseClose(this.res, (this.closeListener = this.clientLeft.bind(this)));
  }

  /** On `close()`, once the drain time is up: ends the reply with an error response and cancels the handler. */
  stop(): void {
    this.endWithError(ErrorCode.InternalError, `Internal error: ${SHUTDOWN_REASON}; send the request again if that is safe`, SHUTDOWN_REASON);
  }

  /** Every message of the reply goes through this, the final response last (the handler's run calls it). */
  emit(message: JsonRpcMessage): Promise<void> | void {
    const channel = this.channel;
    if (channel) {
      channel.push({ message });
      return channel.waitForRoom();
    }
    // No channel and not ended: nothing was decided yet. Once ended (JSON sent, or the client left), nothing more.
    if (!this.ended) this.first(message);
  }

  /** The first message that shapes the reply: JSON, a stream, or (a notification in `json` mode) nothing yet. */
  private first(message: JsonRpcMessage): void {
    const res = this.res;
    const shape = replyShape(message, this.mode, this.modern);
    if (shape.kind === 'drop') return;
    if (shape.kind === 'json') {
      sendJson(res, shape.status, message, undefined, (error) => reportUnserialisable(this.o, this.request, error, this.tracking));
      this.finish();
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.write(formatStreamEvent({ message }));
    if (!('method' in message)) {
      res.end();
      this.finish();
      return;
    }
    const channel = new SseChannel(this.o.maxBufferedBytes);
    channel.owner = this;
    this.channel = channel;
    followStream(res, channel, { keepAlive: this.o.keepAlive, headersSent: true }, this.finish.bind(this));
  }

  /** A reader too slow for this unresumable reply: it ends with an error and the handler is cancelled. */
  channelOverflowed(): void {
    this.endWithError(
      ErrorCode.ServerError,
      `The client read this response too slowly: more than ${this.o.maxBufferedBytes} bytes waited to be sent (option maxBufferedBytesPerStream); the request was cancelled`,
      'The client read the response too slowly',
    );
  }

  /** The stream's writer saw the client leave: the response's close (`clientLeft`) cancels the handler. */
  channelDetached(): void {}

  /** Ends the reply with an error response in place of what still waits, and cancels the handler. */
  private endWithError(code: number, message: string, reason: string): void {
    const channel = this.channel;
    if (channel) {
      channel.clear();
      this.tracking?.failed(code, true);
      channel.push({ message: errorResponse(this.request.id, code, message) });
      channel.end();
    } else if (!this.ended) {
      this.tracking?.failed(code, true);
      this.first(errorResponse(this.request.id, code, message));
    }
    this.abort(new Error(reason));
  }

  /** The handler's run settled: a stream ends once what it holds is written; no response at all is a fault. */
  private runEnded(): void {
    if (this.running) this.o.statelessRuns.remove(this.running);
    if (this.channel) {
      this.channel.end();
      return;
    }
    if (this.ended) return;
    // Cancelled with nothing sent (the client left, or a stream overflowed before it was written).
    if (!this.res.headersSent) sendJson(this.res, 500, errorResponse(null, ErrorCode.InternalError, 'The request ended without a response'));
    this.finish();
  }

  /** The client left before the reply ended: the handler is cancelled (a stream's writer detaches on its own). */
  private clientLeft(): void {
    if (this.ended) return;
    this.abort(new Error('The client disconnected'));
    if (!this.channel) this.finish();
  }

  private abort(reason: Error): void {
    if (this.run) this.run.ctx.abort(reason);
    else this.abortBeforeRun ??= reason;
  }

  private finish(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (this.closeListener) this.res.off('close', this.closeListener);
    // A reply that did not end (the client left mid-stream) cancels its handler; one that ended was answered by a
    // finished handler: nothing to cancel.
    if (!this.res.writableEnded) this.abort(new Error('The client disconnected'));
    this.whenEnded?.(error);
  }
}

/** A handler's result that JSON cannot carry (a BigInt, a cycle): the client got -32603; the fault is the server's. */
export function reportUnserialisable(o: ResolvedOptions, request: JsonRpcRequest, error: unknown, tracking: RequestTracking | undefined): void {
  tracking?.failed(ErrorCode.InternalError, true);
  o.onError(new Error(`The response to ${request.method} (id ${JSON.stringify(request.id)}) could not be serialised as JSON; the client got -32603 instead`, { cause: error }));
}
