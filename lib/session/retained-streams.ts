import { RecencyList } from '../store/recency-list.js';
import type { OutboundStream } from './outbound-stream.js';

/**
 * The request streams a session keeps for resumes, oldest first, found by index. Each stream is its own node in the
 * list (no allocation per request) and there is no `Map` beside it: a session-long `Map` that gains a key and loses
 * one on every request made V8 keep whole finished requests alive through minor collections in the in-process
 * bench, each promoted to the old generation and freed only by a full collection (scavenges took 3 ms instead of
 * 0.5; docs/benchmarks.md, "Collections that churn"). Lookup by index walks from the newest stream and stops at the
 * first older index: what is resumed is nearly always recent, and only resumes look streams up.
 */
export class RetainedStreams {
  private readonly order = new RecencyList<OutboundStream>();

  get size(): number {
    return this.order.size;
  }

  /** Adds a stream just opened (its index is above every index held). */
  add(stream: OutboundStream): void {
    this.order.append(stream);
  }

  /** Forgets a stream; one not held is left alone. */
  remove(stream: OutboundStream): void {
    this.order.remove(stream);
  }

  /** The stream with this index, if it is still held. */
  get(index: number): OutboundStream | undefined {
    for (let node = this.order.newest(); node; node = node.older) {
      const stream = node.value;
      if (stream.index === index) return stream;
      if (stream.index < index) return undefined; // indices fall towards the oldest end
    }
    return undefined;
  }

  /** The oldest stream held. */
  oldest(): OutboundStream | undefined {
    return this.order.oldest();
  }

  /** Oldest first. Removing the stream just yielded is allowed. */
  values(): IterableIterator<OutboundStream> {
    return this.order.values();
  }

  /** Forgets every stream (they are left as they are). */
  clear(): void {
    this.order.clear();
  }
}
