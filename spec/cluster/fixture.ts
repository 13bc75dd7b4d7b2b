/**
 * Instances of one deployment in one process: each has its own McpServer, middleware and session manager (as
 * separate processes would), and they share a message bus, a session store, an event store and stream leases
 * (the in-memory ones stand in for Redis). Requests can be sent to any instance.
 */
import { z } from 'zod';
import {
  InMemoryEventStore,
  InMemoryMessageBus,
  InMemorySessionStore,
  LocalSessionManager,
  McpServer,
  type EventStore,
  type MessageBus,
  type SessionStore,
} from '../../lib/index.js';
import { InMemoryStreamLeases } from '../../lib/store/in-memory-stream-leases.js';
import type { StreamLeaseInfo, StreamLeases } from '../../lib/store/stream-leases.js';
import { serve, type Served } from '../helpers/serve.js';

export interface Shared {
  bus: MessageBus;
  sessionStore: SessionStore;
  eventStore: EventStore;
  leases: StreamLeases;
}

export function sharedStores(): Shared {
  return { bus: new InMemoryMessageBus(), sessionStore: new InMemorySessionStore(), eventStore: new InMemoryEventStore(), leases: new InMemoryStreamLeases() };
}

/** What the handlers of every instance saw, for the assertions. */
export interface Journal {
  aborted: string[];
  ran: string[];
}

/**
 * The tools every instance registers, as a real deployment registers the same tools everywhere: `ask` elicits a
 * name, `slow_count` sends `n` progress notifications `intervalMs` apart, `hold` waits until cancelled.
 */
export function buildServer(name: string, journal: Journal): McpServer {
  const server = new McpServer({ name: 'cluster', version: '1.0.0' });
  server.tool('ask', {}, async (_args, ctx) => {
    journal.ran.push(`ask@${name}`);
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `hello ${String((answer.content as { name?: string } | undefined)?.name)} from ${name}` }] };
  });
  server.tool('slow_count', { inputSchema: { n: z.number().int(), intervalMs: z.number().int() } }, async ({ n, intervalMs }, ctx) => {
    journal.ran.push(`slow_count@${name}`);
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      ctx.signal.throwIfAborted();
      await ctx.progress(i, n, `step ${i}`);
    }
    return { content: [{ type: 'text', text: `counted ${n}` }] };
  });
  server.resource('doc', 'test://doc', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'doc' }] }));
  server.tool('log_info', {}, async (_args, ctx) => {
    await ctx.log('info', `info from ${name}`);
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.tool('hold', {}, async (_args, ctx) => {
    journal.ran.push(`hold@${name}`);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    journal.aborted.push(`hold@${name}`);
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

/** Leases that stop being renewed (or released) once `die()` is called: what a killed instance leaves behind. */
export class MortalLeases implements StreamLeases {
  private dead = false;
  constructor(private readonly inner: StreamLeases) {}
  die(): void {
    this.dead = true;
  }
  acquire(streamId: string, info: StreamLeaseInfo, ttlMs: number, keepMs: number) {
    return this.inner.acquire(streamId, info, ttlMs, keepMs);
  }
  async renew(streamIds: readonly string[], ttlMs: number) {
    if (!this.dead) await this.inner.renew(streamIds, ttlMs);
  }
  async release(streamId: string) {
    if (!this.dead) await this.inner.release(streamId);
  }
  inspect(streamId: string) {
    return this.inner.inspect(streamId);
  }
  claimLost(streamId: string) {
    return this.inner.claimLost(streamId);
  }
}

export interface Instance extends Served {
  name: string;
  server: McpServer;
  manager: LocalSessionManager;
}

export async function startInstance(name: string, shared: Shared, journal: Journal, leases: StreamLeases = shared.leases, leaseTtlMs = 10_000): Promise<Instance> {
  const server = buildServer(name, journal);
  const manager = new LocalSessionManager({
    sessionStore: shared.sessionStore,
    eventStore: shared.eventStore,
    streamLeases: leases,
    leaseTtlMs,
    remoteFollowInterval: 20,
    onError: () => undefined,
  });
  const served = await serve({ server, sseKeepAlive: 0, bus: shared.bus, sessionManager: manager, onError: () => undefined });
  await manager.ready();
  return Object.assign(served, { name, server, manager });
}
