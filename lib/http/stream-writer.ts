import type { ServerResponse } from 'node:http';
import { holdsQueue, type QueuedEventSource, type SseEvent, type SseStream } from '../store/sse-event.js';
import type { KeepAliveTicker } from './keep-alive.js';
import { sendJson } from './respond.js';
import { onResponseClose } from './response-close.js';
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
 * connection. Events are written at the end of the tick they arrive in, together with whatever else arrives in
 * it; a stream that has ended by the end of its first tick (a priming event and a quick handler's response) goes
 * out as one body with its `Content-Length`, not chunked. A client that goes away detaches from the stream
 * (`return()`); it is not a cancellation. A response that is already closed when this is called (the client left
 * while something awaited) detaches at once and writes nothing.
 */
export async function writeStream(res: ServerResponse, stream: SseStream, options: WriteOptions): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  // A channel (the usual stream, watched or not) hands over what it already holds without a promise per event:
  // those events go out in one write with the one awaited, and a channel that has ended with nothing left ends
  // the response at once.
  const channel = holdsQueue(iterator) ? iterator : undefined;
  let gone = false;
  const off = onResponseClose(res, () => {
    gone = true;
    void iterator.return?.();
  });
  let started = false;
  let tracked: ReturnType<KeepAliveTicker['track']>;
  const start = () => {
    started = true;
    res.writeHead(200, options.headers ? { ...SSE_HEADERS, ...options.headers } : SSE_HEADERS);
    tracked = options.keepAlive.track(res);
  };
  let pending = options.pendingNext;
  // Frames not written yet: events that arrive within the same tick (a priming event, then a response that an
  // EventStore acknowledged a few promise steps later) share one write, which is one HTTP chunk, not one each.
  let held = '';
  let flushQueued = false;
  // The first frames may be held with the headers not yet set (see below): their write starts the response.
  const writeHeld = () => {
    flushQueued = false;
    if (held === '' || gone || res.writableEnded) return;
    if (!started) start();
    res.write(held);
    held = '';
    if (tracked) tracked.lastWrite = Date.now();
  };
  try {
    if (gone) {
      pending?.catch(() => undefined); // detached already: the pending next() settles as done
      return;
    }
    if (options.headersSent) {
      started = true;
      tracked = options.keepAlive.track(res);
    } else if (!options.preferJson) {
      // What the stream already holds (a request's priming event) is taken now, without a promise, and held with
      // the headers not yet set: a stream that has ended when the held frames are written is one body with its
      // length (see `endWhole`). With nothing queued the headers are set at once: keep-alive comments need them
      // while the stream waits.
      const first = channel && pending === undefined && !options.flushHeaders ? channel.takeQueued() : undefined;
      if (first === undefined) {
        start();
        if (options.flushHeaders) res.flushHeaders();
      } else {
        held = appendQueued(channel!, res, formatStreamEvent(first));
        if (channel!.exhausted) return endWhole(res, held, options.headers);
        // At the end of the tick: a tick queued from a microtask runs once the microtasks queued so far are done,
        // however this was called (from a request's event or after an await), so a response a few promise steps
        // away (a quick handler's, a store's acknowledgement) is in by then.
        flushQueued = true;
        queueMicrotask(() => process.nextTick(writeHeld));
      }
    }
    for (;;) {
      // Backpressure: while the socket is congested nothing more is pulled, so events wait in the stream's
      // bounded queue (see SseChannel) instead of piling up in the socket's buffer.
      if (res.writableNeedDrain) await drained(res);
      const next = await (pending ?? iterator.next());
      pending = undefined;
      if (next.done || gone) break;
      const event: SseEvent = next.value;
      if (!started && options.preferJson) {
        if (event.message === undefined) continue; // priming is meaningless in a JSON answer
        const shape = replyShape(event.message, 'auto', false);
        if (shape.kind === 'json') {
          sendJson(res, shape.status, event.message, options.headers);
          return;
        }
        start();
      }
      if (res.writableEnded) break;
      held += formatStreamEvent(event);
      if (channel) held = appendQueued(channel, res, held);
      if (channel?.exhausted) break;
      // Written at the end of this tick, with whatever else arrives by then; a buffer's worth is written now.
      if (held.length >= res.writableHighWaterMark) writeHeld();
      else if (!flushQueued) {
        flushQueued = true;
        process.nextTick(writeHeld);
      }
    }
    if (gone) return;
    if (!started) {
      // Nothing written yet: what is held is the whole response.
      if (held !== '') return endWhole(res, held, options.headers);
      // The stream ended without a message (e.g. the request was cancelled): an empty SSE stream says so.
      start();
    }
    // The last frames go out with the end of the response: one write, where a write and then an end took two of
    // Node's write steps (and an extra tick) for the usual call, whose whole stream is held here by now.
    if (held !== '' && !res.writableEnded) {
      const last = held;
      held = '';
      res.end(last);
    } else {
      res.end();
    }
  } catch (error) {
    void iterator.return?.();
    throw error;
  } finally {
    held = ''; // a queued write has nothing left to do
    off();
    options.keepAlive.untrack(tracked);
  }
}

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
