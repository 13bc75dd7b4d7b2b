/**
 * The scenario of rmcp's `restored_instance_replays_events_from_shared_store`
 * (shared/seeds/rmcp-test_streamable_http_event_store.rs.txt), for any pair of stores: instance A serves
 * initialize and a tool call that emits progress and is shut down; instance B, given the progress event's id,
 * replays the final response. Each spec supplies how an instance is started (its stores).
 */
import { LocalSessionManager, McpServer } from '../../lib/index.js';
import { RedisEventStore, RedisSessionStore, type RedisEventStoreClient, type RedisSessionStoreClient } from '../../lib/redis/index.js';
import { serve, type Served } from './serve.js';
import { parseSse } from './sse.js';

/** A server whose `progress` tool reports progress once, then answers "done". */
export function progressServer(): McpServer {
  const server = new McpServer({ name: 'progress', version: '1.0.0' });
  server.tool('progress', { description: 'Reports progress once' }, async (_args, ctx) => {
    ctx.progress(50, 100, 'working');
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

const json = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

export interface SeedResult {
  sessionId: string;
  /** Headers of a session-era request in that session. */
  session: Record<string, string>;
  /** Instance B, still running: the caller closes it. */
  b: Served;
  replayStatus: number;
  replayBody: string;
}

/** Initializes a session of `version` on `url` (initialize only); returns the headers of a request in it. */
export async function initializeOn(url: string, version: string): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '1.0' } } }),
  });
  const sessionId = init.headers.get('mcp-session-id')!;
  expect(sessionId).toBeTruthy();
  await init.text();
  return { ...json, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': version };
}

/** Runs the scenario; `afterA` runs once A is shut down (to look at the stores between the two instances). */
export async function replayOnSecondInstance(start: () => Promise<Served>, afterA?: (sessionId: string) => Promise<void>): Promise<SeedResult> {
  const a = await start();
  const session = await initializeOn(a.url, '2025-06-18');
  const sessionId = session['Mcp-Session-Id'];
  const initialized = await fetch(a.url, { method: 'POST', headers: session, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  expect(initialized.status).toBe(202);

  const original = await fetch(a.url, {
    method: 'POST',
    headers: session,
    body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"progress-1"}}}',
  });
  const progressEventId = parseSse(await original.text()).find((event) => event.data?.includes('notifications/progress'))?.id;
  expect(progressEventId).toBeDefined();
  await a.close();
  await afterA?.(sessionId);

  const b = await start();
  const replay = await fetch(b.url, {
    headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18', 'Last-Event-ID': progressEventId! },
  });
  return { sessionId, session, b, replayStatus: replay.status, replayBody: await replay.text() };
}

/** What the scenario needs of a Redis deployment (one node or a cluster). */
export interface SeedRedis {
  /** A new connected client (each instance gets its own, like separate processes). */
  connect(): Promise<RedisSessionStoreClient & RedisEventStoreClient>;
  /** How many of `key` exist, read on a client of the test. */
  exists(key: string): Promise<number>;
  /** A key prefix unique to the run. */
  prefix(name: string): string;
}

/**
 * The scenario with Redis stores, each instance on its own clients: the session is in Redis between A and B, B
 * replays the final response from Redis, and DELETE on B removes the session from Redis.
 */
export async function replayOnSecondInstanceWithRedis(redis: SeedRedis): Promise<void> {
  const keys = { events: redis.prefix('seed-events'), sessions: redis.prefix('seed-sessions') };
  const start = async (): Promise<Served> => {
    const [events, sessions] = [await redis.connect(), await redis.connect()];
    const sessionManager = new LocalSessionManager({
      sessionStore: new RedisSessionStore(sessions, { keyPrefix: keys.sessions }),
      eventStore: new RedisEventStore(events, { keyPrefix: keys.events }),
    });
    return serve({ server: progressServer(), sseKeepAlive: 0, sessionManager });
  };

  const { sessionId, session, b, replayStatus, replayBody } = await replayOnSecondInstance(start, async (id) => {
    expect(await redis.exists(`${keys.sessions}${id}`)).toBe(1);
  });
  try {
    expect(replayStatus).toBe(200);
    expect(replayBody).toContain('"id":2');
    expect(replayBody).toContain('done');
    expect(replayBody).not.toContain('notifications/progress');

    // DELETE on B removes the session from Redis.
    const deleted = await fetch(b.url, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    expect(await redis.exists(`${keys.sessions}${sessionId}`)).toBe(0);
  } finally {
    await b.close();
  }
}
