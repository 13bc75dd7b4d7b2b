import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, isResponseMessage } from '../protocol/jsonrpc.js';
import type { EventStore } from '../store/event-store.js';
import type { SseEvent } from '../store/sse-event.js';
import type { StreamLeases } from '../store/stream-leases.js';

export interface FollowOptions {
  /** How often (ms) to read the store again while the stream runs elsewhere. */
  pollMs: number;
  onError: (error: unknown) => void;
}

/** The message that ends a stream whose instance was lost. */
export const LOST_INSTANCE_MESSAGE =
  'Internal error: the server instance handling this request was lost before it finished; the request may or may not have taken effect. Send it again if that is safe.';

/**
 * A resume of a stream that runs (or ran) on another instance: the events an EventStore holds after `lastEventId`,
 * then, while the stream is still running there, each new event as it is stored (read every `pollMs`), until its
 * final response. When no instance holds the stream's lease any more and it never completed, the stream ends with a
 * -32603 error response for its request, stored once (whoever claims it first), so every later resume sees the
 * same ending. A stream with no lease record (another kind of stream, or an old one), or any stream when there
 * are no leases, is replayed as stored.
 */
export async function* followFromStore(store: EventStore, leases: StreamLeases | undefined, streamId: string, lastEventId: string, options: FollowOptions): AsyncGenerator<SseEvent> {
  let last = lastEventId;
  try {
    if (!leases) {
      // Nothing tells a running stream from a finished one: what is stored is all there is.
      yield* replayRest(store, last);
      return;
    }
    for (;;) {
      let ended = false;
      for await (const stored of store.replayEventsAfter(last)) {
        last = stored.id;
        yield { id: stored.id, message: stored.event.message, retry: stored.event.retry };
        if (isResponseMessage(stored.event.message)) ended = true;
      }
      if (ended) return;
      const lease = await leases.inspect(streamId);
      // Released: the stream completed (or was cancelled); nothing follows. Nothing known of a lease (another kind
      // of stream, or a released record already forgotten): the same. Either way, one last read for what was stored
      // between the replay above and the lease check.
      if (!lease || lease.released) {
        yield* replayRest(store, last);
        return;
      }
      if (!lease.held) {
        if (await leases.claimLost(streamId)) {
          const message = errorResponse(lease.info.requestId, ErrorCode.InternalError, LOST_INSTANCE_MESSAGE);
          const id = await store.storeEvent(streamId, { message });
          await store.completeStream?.(streamId);
          yield { id, message };
          return;
        }
        // Another resume is storing the ending: read it on the next round.
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    }
  } catch (error) {
    options.onError(error);
  }
}

/** Whatever the store got after `last` (a stream that completed between the last read and the lease check). */
async function* replayRest(store: EventStore, last: string): AsyncGenerator<SseEvent> {
  for await (const stored of store.replayEventsAfter(last)) yield { id: stored.id, message: stored.event.message, retry: stored.event.retry };
}
