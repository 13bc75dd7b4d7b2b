/**
 * Event ids come from the EventStore, which may be user code: whatever text a store mints (CR, LF, NUL, `data:`
 * lines, very long ids), the SSE framing on the wire stays intact: no injected field or event, exactly the one
 * response, and every id that is written is one the store minted, whole. For a session stream and a persisted
 * stateless one.
 */
import express from 'express';
import fc from 'fast-check';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore, LocalSessionManager, mcpMiddleware, NeverSessionManager, type EventStore, type McpRequestHandler, type SseEvent, type StoredEvent } from '../../lib/index.js';
import { buildFuzzServer, parseSseEvents, runs, scaleTestTimeout, SEED, sessionHeaders, WireClient } from './fixture.js';
import { checkAnswer, responsesOf } from './oracles.js';

/** An InMemoryEventStore whose ids are replaced by the next scripted ones (then by the store's own). */
class ScriptedIdStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  private readonly toInner = new Map<string, string>();
  private readonly fromInner = new Map<string, string>();
  script: string[] = [];
  minted: string[] = [];

  async storeEvent(streamId: string, event: SseEvent): Promise<string> {
    const innerId = await this.inner.storeEvent(streamId, event);
    const id = this.script.shift() ?? innerId;
    this.toInner.set(id, innerId);
    this.fromInner.set(innerId, id);
    this.minted.push(id);
    return id;
  }

  async *replayEventsAfter(lastEventId: string): AsyncIterable<StoredEvent> {
    for await (const stored of this.inner.replayEventsAfter(this.toInner.get(lastEventId) ?? lastEventId)) {
      yield { id: this.fromInner.get(stored.id) ?? stored.id, event: stored.event };
    }
  }

  streamIdOf(eventId: string): string | undefined {
    return this.inner.streamIdOf(this.toInner.get(eventId) ?? eventId);
  }
}

interface Served {
  port: number;
  store: ScriptedIdStore;
  client: WireClient;
  close(): Promise<void>;
}

async function serveWith(kind: 'session' | 'stateless'): Promise<Served> {
  const store = new ScriptedIdStore();
  const sessionManager = kind === 'session' ? new LocalSessionManager({ eventStore: store }) : new NeverSessionManager({ eventStore: store });
  const middleware: McpRequestHandler = mcpMiddleware({ server: buildFuzzServer(), sessionManager, legacySessions: kind === 'session', onError: () => undefined });
  const app = express();
  app.use(middleware);
  const server = await new Promise<http.Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const port = (server.address() as AddressInfo).port;
  const client = new WireClient(port);
  return {
    port,
    store,
    client,
    async close() {
      client.close();
      await middleware.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Ids a store might mint: line breaks, NUL, text that looks like SSE fields, very long ones. */
const mintedId = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', '1', '#', '/', ':', ' ', '\r', '\n', '\0', '\u2028', 'é'), maxLength: 24 }),
  fc.constantFrom('x\n\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', 'x\rdata: injected', 'x\r\nevent: other', 'id\0nul', 'retry: 1\nid: y', 'i'.repeat(2000), ''),
);

scaleTestTimeout();

describe.each(['session', 'stateless'] as const)('%s streams', (kind) => {
  let served: Served;
  let sessionId: string | undefined;
  beforeAll(async () => {
    served = await serveWith(kind);
    if (kind === 'session') {
      const res = await served.client.send({
        method: 'POST',
        headers: sessionHeaders('alice', '2025-11-25'),
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ids', version: '1' } } }),
      });
      sessionId = res.headers['mcp-session-id'] as string;
    }
  });
  afterAll(async () => {
    await served.close();
  });

  it('keeps the SSE framing intact whatever ids the EventStore mints', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mintedId, { minLength: 1, maxLength: 4 }), fc.constantFrom('echo', 'progress'), async (ids, tool) => {
        served.store.script = [...ids];
        served.store.minted = [];
        const res = await served.client.send({
          method: 'POST',
          headers: sessionHeaders('alice', '2025-11-25', sessionId),
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: tool, arguments: { text: 'framed' } } }),
        });
        served.store.script = [];
        checkAnswer(res);
        expect(res.sse).toBe(true);
        const events = parseSseEvents(res.text);
        for (const event of events) {
          expect(event.unknownFields).toEqual([]);
          // Every block the server writes carries data (a message or a priming event) or is a bare retry hint.
          if (event.data === undefined) expect(event.retry).toBeDefined();
          if (event.id !== undefined) expect(served.store.minted).toContain(event.id);
        }
        const responses = responsesOf(res);
        expect(responses).toHaveLength(1);
        expect(responses[0]).toMatchObject({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text' }] } });
      }),
      { seed: SEED + 700, numRuns: runs(50) },
    );
  });
});
