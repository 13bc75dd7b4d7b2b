import type { ServerResponse } from 'node:http';
import { holdsQueue, type QueuedEventSource, type SseEvent, type SseStream } from '../store/sse-event.js';
import type { KeepAliveTicker } from './keep-alive.js';
import { sendJson } from './respond.js';
import { onResponseClose } from './response-close.js';
import { untilEnded, type ResponseEnded } from './response-ended.js';
import { formatStreamEvent } from './sse-format.js';
import { replyShape } from './reply-shape.js';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/** `SSE_HEADERS` as the flat name/value list `writeHead` also takes. */
const SSE_HEADER_LIST = Object.entries(SSE_HEADERS).flat();

export interface WriteOptions {
  keepAlive: KeepAliveTicker;
  headers?: Record<string, string>;
  /** Send the headers at once (GET streams), instead of with the first event. */
  flushHeaders?: boolean;
  /** Answer with one JSON body when the first message is the final response; otherwise fall back to SSE. */
  preferJson?: boolean;
  /** The caller already wrote the SSE status and headers (and maybe a first event). */
  headersSent?: boolean;
  /**
   * A `next()` of the stream the caller already called and has not consumed: taken as the first result instead
   * of calling `next()` again, so that a single-consumer stream (`SseChannel`) never has two outstanding calls.
   */
  pendingNext?: Promise<IteratorResult<SseEvent>>;
}

/**
 * Writes a stream as one SSE response and ends it when the stream ends, so keep-alive clients reuse the
 * connection: `followStream` with a promise, for callers that await it. Rejects when writing failed.
 */
export function writeStream(res: ServerResponse, stream: SseStream, options: WriteOptions): Promise<void> {
  return untilEnded((ended) => followStream(res, stream, options, ended));
}

/**
 * Writes a stream as one SSE response and ends it when the stream ends, so keep-alive clients reuse the
 * connection; `ended` is called once, when the response has ended or the client has left, with the error when
 * writing failed. Events are written at the end of the tick they arrive in, together with whatever else arrives in
 * it; a stream that has ended by the end of its first tick (a priming event and a quick handler's response) goes
 * out as one body with its `Content-Length`, not chunked. A client that goes away detaches from the stream
 * (`return()`); it is not a cancellation. A response that is already closed when this is called (the client left
 * while something awaited) detaches at once and writes nothing.
 *
 * Driven by callbacks, not an `async` loop: an `SseChannel` hands over each event as it is pushed (`whenNext`),
 * so a session call's response makes no promise here (the writer's own, the channel's `next()` and its `await`,
 * and the caller's `catch` were four of its promise steps; bench/in-process.js counts them). Any other stream is
 * read with `next()`.
 */
export function followStream(res: ServerResponse, stream: SseStream, options: WriteOptions, ended: ResponseEnded): void {
  new StreamFollower(res, stream[Symbol.asyncIterator](), options, ended).start();
}

/** The state of one `followStream`: a class rather than closures, one object per response. */
class StreamFollower {
  /** A channel (the usual stream, watched or not) hands over what it already holds without a promise per event. */
  private readonly channel: QueuedEventSource | undefined;
  private gone = false;
  private started = false;
  private finished = false;
  /** Writing failed and `fail` is on its way (see `received`): nothing more is taken. */
  private broken = false;
  private tracked: ReturnType<KeepAliveTicker['track']>;
  private pending: Promise<IteratorResult<SseEvent>> | undefined;
  /**
   * Frames not written yet: events that arrive within the same tick (a priming event, then a response a few
   * promise steps later) share one write, which is one HTTP chunk, not one each.
   */
  private held = '';
  private flushQueued = false;
  /*
   * Bound methods, not closures: a per-request object that keeps closures pointing back at it made V8 keep whole
   * requests alive through minor collections (docs/benchmarks.md, "Collections that churn, closures kept on a
   * request"); with closures here the session call counted half as many instructions again.
   */
  /** `clientGone`, bound: the response's 'close' listener while the stream is followed. */
  private closeListener: (() => void) | undefined;
  /** `received`, bound, made once a result has to be waited for. */
  private receiver: ((result: IteratorResult<SseEvent>) => void) | undefined;
  /** `writeAtTickEnd`, bound, made once frames are held. */
  private tickEnd: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly iterator: AsyncIterator<SseEvent>,
    private readonly options: WriteOptions,
    private readonly ended: ResponseEnded,
  ) {
    this.channel = holdsQueue(iterator) ? iterator : undefined;
    this.pending = options.pendingNext;
  }

  start(): void {
    try {
      // A response that closed while something ran before (an auth middleware, a session restore) emits no more
      // 'close': its client has left already.
      onResponseClose(this.res, (this.closeListener = this.clientGone.bind(this)));
      if (this.gone) {
        this.pending?.catch(noop); // detached already: the pending next() settles as done
        return this.finish();
      }
      const { res, options, channel } = this;
      if (options.headersSent) {
        this.started = true;
        this.tracked = options.keepAlive.track(res);
      } else if (!options.preferJson) {
        // What the stream already holds (a request's priming event) is taken now and held with the headers not
        // yet set: a stream that has ended when the held frames are written is one body with its length (see
        // `endWhole`). With nothing queued the headers are set at once: keep-alive comments need them while the
        // stream waits.
        const first = channel && this.pending === undefined && !options.flushHeaders ? channel.takeQueued() : undefined;
        if (first === undefined) {
          this.startResponse();
          if (options.flushHeaders) res.flushHeaders();
        } else {
          this.held = appendQueued(channel!, res, formatStreamEvent(first));
          if (channel!.exhausted) {
            endWhole(res, this.held, options.headers);
            return this.finish();
          }
          this.flushAtTickEnd();
        }
      }
      this.pull();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Takes results while they are at hand; returns once one has to be waited for (or the response ended). */
  private pull(): void {
    const { res, channel } = this;
    for (;;) {
      // Backpressure: while the socket is congested nothing more is pulled, so events wait in the stream's
      // bounded queue (see SseChannel) instead of piling up in the socket's buffer.
      if (res.writableNeedDrain) {
        drained(res).then(
          () => this.resume(),
          (error: unknown) => this.fail(error),
        );
        return;
      }
      let next: IteratorResult<SseEvent>;
      const pending = this.pending;
      if (pending) {
        this.pending = undefined;
        pending.then(this.receive(), (error: unknown) => this.fail(error));
        return;
      }
      const event = channel?.takeQueued();
      if (event !== undefined) next = { value: event, done: false };
      else if (channel?.exhausted) next = DONE;
      else if (channel?.whenNext) return channel.whenNext(this.receive());
      else {
        this.iterator.next().then(this.receive(), (error: unknown) => this.fail(error));
        return;
      }
      if (!this.step(next)) return;
    }
  }

  /** The bound `received`, made on first use. */
  private receive(): (result: IteratorResult<SseEvent>) => void {
    return (this.receiver ??= this.received.bind(this));
  }

  /**
   * A result that was waited for: from a promise, or from inside the `push()` or `end()` of a channel's producer
   * (a handler's `notify`, a session's response). A failure there is acted on in a microtask, as it was when the
   * writer awaited the channel: a handler whose own notification could not be written is cancelled after its
   * `notify` call returns, not inside it (one that listens for `abort` right after the call would miss it).
   */
  private received(next: IteratorResult<SseEvent>): void {
    try {
      if (this.step(next)) this.pull();
    } catch (error) {
      this.broken = true;
      queueMicrotask(() => this.fail(error));
    }
  }

  /** After a congested socket drained. */
  private resume(): void {
    try {
      this.pull();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Takes one result; false when the response has ended (nothing more to pull). */
  private step(next: IteratorResult<SseEvent>): boolean {
    if (this.finished || this.broken) return false;
    if (next.done || this.gone) {
      this.end();
      return false;
    }
    const { res, options, channel } = this;
    const event: SseEvent = next.value;
    if (!this.started && options.preferJson) {
      if (event.message === undefined) return true; // priming is meaningless in a JSON answer
      const shape = replyShape(event.message, 'auto', false);
      if (shape.kind === 'json') {
        sendJson(res, shape.status, event.message, options.headers);
        this.finish();
        return false;
      }
      this.startResponse();
    }
    if (res.writableEnded) {
      this.end();
      return false;
    }
    this.held += formatStreamEvent(event);
    if (channel) this.held = appendQueued(channel, res, this.held);
    if (channel?.exhausted) {
      this.end();
      return false;
    }
    // Written at the end of this tick, with whatever else arrives by then; a buffer's worth is written now.
    if (this.held.length >= res.writableHighWaterMark) this.writeHeld();
    else this.flushAtTickEnd();
    return true;
  }

  /**
   * The held frames are written at the end of the tick: a tick queued from a microtask runs once the microtasks
   * queued so far are done, however this was called (from a request's event, a producer's `push()`, after a
   * promise), so a response a few promise steps away (a quick handler's, a store's acknowledgement) is in by then.
   */
  private flushAtTickEnd(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask((this.tickEnd ??= this.writeAtTickEnd.bind(this)));
  }

  private writeAtTickEnd(): void {
    process.nextTick(writeHeldOf, this);
  }

  /** Writes what is held (the first write starts the response). */
  writeHeld(): void {
    this.flushQueued = false;
    const { res } = this;
    if (this.held === '' || this.gone || res.writableEnded) return;
    if (!this.started) this.startResponse();
    res.write(this.held);
    this.held = '';
    if (this.tracked) this.tracked.lastWrite = Date.now();
  }

  private startResponse(): void {
    this.started = true;
    const { res, options } = this;
    res.writeHead(200, options.headers ? { ...SSE_HEADERS, ...options.headers } : SSE_HEADERS);
    this.tracked = options.keepAlive.track(res);
  }

  /** The stream ended (or the response did): what is held goes out with the end of the response. */
  private end(): void {
    const { res } = this;
    if (this.gone) return this.finish();
    if (!this.started) {
      // Nothing written yet: what is held is the whole response.
      if (this.held !== '') {
        endWhole(res, this.held, this.options.headers);
        return this.finish();
      }
      // The stream ended without a message (e.g. the request was cancelled): an empty SSE stream says so.
      this.startResponse();
    }
    // The last frames go out with the end of the response: one write, where a write and then an end took two of
    // Node's write steps (and an extra tick) for the usual call, whose whole stream is held here by now.
    if (this.held !== '' && !res.writableEnded) {
      const last = this.held;
      this.held = '';
      res.end(last);
    } else {
      res.end();
    }
    this.finish();
  }

  /** The client went away: the stream is detached (its pending result then comes as done). */
  private clientGone(): void {
    this.gone = true;
    void this.iterator.return?.();
  }

  /** Writing failed: the stream is detached and `ended` gets the error. */
  private fail(error: unknown): void {
    // Once finished the response is done with. What can throw then is `ended` itself (the middleware's callbacks
    // do not throw), and it is dropped here: no caller is left to hand it to.
    if (this.finished) return;
    void this.iterator.return?.();
    this.finish(error ?? new Error('The SSE stream failed'));
  }

  private finish(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.held = ''; // a queued write has nothing left to do
    if (this.closeListener) this.res.off('close', this.closeListener);
    this.options.keepAlive.untrack(this.tracked);
    this.ended(error);
  }
}

const DONE: IteratorResult<SseEvent> = { value: undefined, done: true };

function writeHeldOf(follower: StreamFollower): void {
  follower.writeHeld();
}

function noop(): void {}

/**
 * `held` with what the channel already holds appended, up to a socket buffer's worth (the rest waits in the
 * channel: backpressure). A function of its own, not one inside `writeStream`: that one would be a closure made
 * per response.
 */
function appendQueued(channel: QueuedEventSource, res: ServerResponse, held: string): string {
  while (held.length < res.writableHighWaterMark) {
    const queued = channel.takeQueued();
    if (queued === undefined) break;
    held += formatStreamEvent(queued);
  }
  return held;
}

/**
 * A whole SSE response known at once (the stream ended before anything was written): its frames as one body with
 * its `Content-Length`. Node writes it without chunk framing, in one step.
 */
function endWhole(res: ServerResponse, frames: string, headers: Record<string, string> | undefined): void {
  if (res.writableEnded) return;
  const length = String(Buffer.byteLength(frames));
  res.writeHead(200, headers ? { ...SSE_HEADERS, ...headers, 'Content-Length': length } : [...SSE_HEADER_LIST, 'Content-Length', length]);
  res.end(frames);
}

/** Settles when a congested response can take more ('drain'), or when it closed. */
export function drained(res: ServerResponse): Promise<void> {
  if (!res.writableNeedDrain || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
