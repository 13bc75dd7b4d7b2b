/** Fixtures shared by the specs of spec/session (not a test file itself). */
import { parseLocalEventId, type LocalEventPosition } from '../../lib/session/local-event-id.js';
import { z } from 'zod';
import { InMemoryEventStore, McpServer, type EventStore, type SseEvent, type StoredEvent } from '../../lib/index.js';
import type { RequestContext } from '../../lib/index.js';
import { RawClient } from '../helpers/raw-client.js';
import { parseSse, sseMessages } from '../helpers/sse.js';
import { sleep } from '../helpers/wire.js';

export { ping, sleep } from '../helpers/wire.js';

/** What the fixture tools report back to a test. */
export interface ToolLog {
  /** Outcome of `ask` calls once their elicitation settled: 'answered: …' or 'rejected: <message>'. */
  asked: string[];
  /** Contexts of `block` calls as they start. */
  blocked: RequestContext[];
}

/** A server with the tools the session specs need: echo, wait, ask (elicits), block (runs until cancelled), bigint (an unserialisable result) and a static resource. */
export function fixtureServer(log: ToolLog = { asked: [], blocked: [] }, options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'session-spec', version: '1.0.0' }, options);
  server.tool('echo', { description: 'Echo text', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool('wait', { description: 'Answer after ms', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await sleep(ms);
    return { content: [{ type: 'text', text: `waited ${ms}` }] };
  });
  server.tool('ask', { description: 'Elicit a name' }, async (_args, ctx) => {
    try {
      const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      log.asked.push(`answered: ${String(answer.content?.name)}`);
      return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
    } catch (error) {
      log.asked.push(`rejected: ${(error as Error).message}`);
      throw error;
    }
  });
  server.tool('block', { description: 'Run until cancelled' }, async (_args, ctx) => {
    log.blocked.push(ctx);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return { content: [{ type: 'text', text: 'unblocked' }] };
  });
  server.tool('bigint', { description: 'Returns a result JSON cannot represent' }, () => ({
    content: [{ type: 'text', text: 'big' }],
    structuredContent: { big: BigInt(10) },
  }));
  server.resource('static', 'test://static', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'static' }] }));
  return server;
}

/** A RawClient of the same session, aimed at another instance. */
export function sameSessionOn(url: string, client: RawClient): RawClient {
  const other = new RawClient(url, client.protocolVersion);
  other.sessionId = client.sessionId;
  return other;
}

/** POSTs one message and reads the whole body, failing after `ms` instead of hanging. */
export async function postWithin(client: RawClient, message: unknown, ms = 5000): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(client.url, { method: 'POST', headers: client.headers(), body: JSON.stringify(message), signal: AbortSignal.timeout(ms) });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** GET with `Last-Event-ID` on the client's session; reads the whole body, failing after `ms` instead of hanging. */
export async function resumeWithin(client: RawClient, lastEventId: string, ms = 3000): Promise<{ status: number; body: string }> {
  const response = await client.get({ 'Last-Event-ID': lastEventId }, AbortSignal.timeout(ms));
  return { status: response.status, body: await response.text() };
}

/** Ids of the events of an SSE body, in order. */
export function eventIds(body: string): string[] {
  return parseSse(body)
    .map((event) => event.id)
    .filter((id): id is string => id !== undefined);
}

export { parseSse, sseMessages };

/** The wire format of local event ids, as the spec expects it (an oracle, independent of lib's parser). */
export const LOCAL_EVENT_ID = /^([0-9a-f]{8})\.(\d+)\/(\d+)$/;

/** The parts of a local event id (`<8 hex incarnation>.<stream index>/<seq>`); throws for anything else. */
export function parseLocalId(id: string): LocalEventPosition {
  const position = parseLocalEventId(id);
  if (!position) throw new Error(`not a local event id: ${id}`);
  return position;
}

/**
 * An InMemoryEventStore whose replays wait `delayMs` before yielding anything, and, while `hold` is set, also until
 * it resolves (so a test can be sure something happened while a replay was still waiting).
 */
export class SlowReplayStore implements EventStore {
  readonly inner = new InMemoryEventStore();
  /** Epoch ms at which each replay finished its delay and started yielding. */
  readonly replayed: number[] = [];
  hold: Promise<void> | undefined;

  constructor(private readonly delayMs: number) {}

  storeEvent(streamId: string, event: SseEvent): Promise<string> {
    return this.inner.storeEvent(streamId, event);
  }

  async *replayEventsAfter(lastEventId: string): AsyncGenerator<StoredEvent> {
    await Promise.all([sleep(this.delayMs), this.hold]);
    this.replayed.push(Date.now());
    yield* this.inner.replayEventsAfter(lastEventId);
  }

  streamIdOf(eventId: string): string | undefined {
    return this.inner.streamIdOf(eventId);
  }

  completeStream(streamId: string): Promise<void> {
    return this.inner.completeStream(streamId);
  }

  isStreamComplete(streamId: string): Promise<boolean> {
    return this.inner.isStreamComplete(streamId);
  }
}
