/**
 * NeverSessionManager (`legacySessions: false`): 2025-era clients are served with no session (no Mcp-Session-Id,
 * GET/DELETE 405), and with an EventStore stateless SSE replies are persisted, so a client that dropped its
 * connection can resume on any instance with GET + Last-Event-ID. Includes the port of rmcp's
 * `stateless_instance_replays_events_from_shared_store` (shared/seeds/rmcp-test_streamable_http_event_store.rs.txt).
 */
import { InMemoryEventStore, LocalSessionManager, McpServer, NeverSessionManager } from '../../lib/index.js';
import { openLive } from '../helpers/http-helpers.js';
import { ACCEPT_BOTH, callTool, modern, MODERN, rawRequest, resultOf, sleep, startModern, textOf, waitUntil, type ModernHarness } from '../helpers/modern.js';
import { closeAfterEach, serve, type Served } from '../helpers/serve.js';
import { parseSse } from '../helpers/sse.js';

const track = closeAfterEach();

const SESSION_ERA = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

function legacyHeaders(version: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, ...extra };
  if (version !== undefined && version !== '2025-03-26') headers['MCP-Protocol-Version'] = version;
  return headers;
}

describe('legacySessions: false', () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern({ legacySessions: false });
  });
  afterAll(() => h.close());

  test.each(SESSION_ERA)('a %s client initializes and calls tools with no Mcp-Session-Id anywhere', async (version) => {
    const init = await rawRequest(
      h.port,
      'POST',
      legacyHeaders(undefined),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } }),
    );
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(resultOf(init)).toMatchObject({ protocolVersion: version, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'stateless-spec' } });
    expect(resultOf(init).resultType).toBeUndefined();

    const initialized = await rawRequest(h.port, 'POST', legacyHeaders(version), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(initialized.status).toBe(202);
    expect(initialized.headers['mcp-session-id']).toBeUndefined();

    const call = await rawRequest(h.port, 'POST', legacyHeaders(version), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }));
    expect(call.status).toBe(200);
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(textOf(resultOf(call)))).toMatchObject({ protocolVersion: version, sessionId: null });
    expect(resultOf(call).resultType).toBeUndefined();
  });

  test('an initialize asking for an unknown version is answered with the latest session-era version', async () => {
    const init = await rawRequest(
      h.port,
      'POST',
      legacyHeaders(undefined),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    );
    expect(resultOf(init).protocolVersion).toBe('2025-11-25');
  });

  test('an Mcp-Session-Id sent by the client is ignored, never echoed', async () => {
    const call = await rawRequest(
      h.port,
      'POST',
      legacyHeaders('2025-11-25', { 'Mcp-Session-Id': 'made-up-session' }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    );
    expect(call.status).toBe(200);
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(resultOf(call).tools.length).toBeGreaterThan(0);
  });

  test('2026-07-28 requests are served as usual', async () => {
    const reply = await callTool(h.port, 'whoami', {}, { id: 4 });
    expect(JSON.parse(textOf(resultOf(reply)))).toMatchObject({ protocolVersion: MODERN, sessionId: null });
  });

  test.each([
    ['GET', { Accept: 'text/event-stream' }],
    ['GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': 'x' }],
    ['GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': 'whatever#1' }],
    ['DELETE', {}],
    ['DELETE', { 'Mcp-Session-Id': 'x', 'MCP-Protocol-Version': '2025-11-25' }],
    ['PUT', {}],
  ])('%s %j → 405 with Allow: POST', async (method, headers) => {
    const reply = await rawRequest(h.port, method, headers as Record<string, string>);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
    expect(reply.headers['mcp-session-id']).toBeUndefined();
  });

  test('a batch is refused (one message per POST without sessions)', async () => {
    const reply = await rawRequest(h.port, 'POST', legacyHeaders(undefined), JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]));
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe(-32600);
  });

  test('legacySessions: false with a stateful session manager is refused at start-up', async () => {
    await expect(startModern({ legacySessions: false, sessionManager: new LocalSessionManager() })).rejects.toThrow(/legacySessions/);
  });
});

describe('a stateful server still answers 405 to 2026-07-28 GET and DELETE', () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern();
  });
  afterAll(() => h.close());

  test.each(['GET', 'DELETE'])('%s with MCP-Protocol-Version 2026-07-28', async (method) => {
    const reply = await rawRequest(h.port, method, { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Persisted stateless streams (NeverSessionManager with an EventStore)

interface Flags {
  finished: number;
  aborted: number;
  release?: () => void;
}

function progressServer(flags: Flags): McpServer {
  const server = new McpServer({ name: 'progress', version: '1.0.0' });
  server.tool('slow-progress', { description: 'Reports progress once, then answers after 100 ms' }, async (_args, ctx) => {
    ctx.progress(50, 100, 'working');
    await sleep(100);
    if (ctx.signal.aborted) flags.aborted++;
    flags.finished++;
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool('gated-progress', { description: 'Reports progress, then answers when released' }, async (_args, ctx) => {
    ctx.progress(1, 2, 'waiting');
    await new Promise<void>((resolve) => (flags.release = resolve));
    ctx.progress(2, 2, 'released');
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

const MODERN_CALL = (name: string, id = 2) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      _meta: {
        progressToken: 'progress-1',
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });

const modernCallHeaders = (name: string) => ({
  'Content-Type': 'application/json',
  Accept: ACCEPT_BOTH,
  'MCP-Protocol-Version': MODERN,
  'Mcp-Method': 'tools/call',
  'Mcp-Name': name,
});

/** The id of the SSE event whose data contains `needle` (rmcp's `event_id_containing`). */
function eventIdContaining(body: string, needle: string): string | undefined {
  return parseSse(body).find((event) => event.data?.includes(needle))?.id;
}

async function storedMessages(store: InMemoryEventStore, afterId: string): Promise<any[]> {
  const messages: any[] = [];
  for await (const stored of store.replayEventsAfter(afterId)) if (stored.event.message) messages.push(stored.event.message);
  return messages;
}

/** Calls gated-progress, waits for its first progress event, disconnects; returns that event's id. */
async function callGatedAndDisconnect(served: Served, id: number): Promise<string> {
  const original = await openLive(served, { method: 'POST', headers: modernCallHeaders('gated-progress'), body: MODERN_CALL('gated-progress', id) });
  await original.waitFor((text) => eventIdContaining(text, 'notifications/progress') !== undefined);
  const progressEventId = eventIdContaining(original.text(), 'notifications/progress')!;
  original.close();
  await original.ended;
  return progressEventId;
}

test('port of rmcp stateless_instance_replays_events_from_shared_store', async () => {
  const eventStore = new InMemoryEventStore();
  const flags: Flags = { finished: 0, aborted: 0 };
  const start = async (): Promise<Served> => track(await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) }));

  // Instance A serves the call; the client drops the connection right after the progress event.
  const a = await start();
  const original = await openLive(a, { method: 'POST', headers: modernCallHeaders('slow-progress'), body: MODERN_CALL('slow-progress') });
  expect(original.status).toBe(200);
  expect(original.headers['mcp-session-id']).toBeUndefined();
  expect(original.headers['content-type']).toMatch(/^text\/event-stream/);
  await original.waitFor((text) => eventIdContaining(text, 'notifications/progress') !== undefined, 2000);
  const progressEventId = eventIdContaining(original.text(), 'notifications/progress')!;
  // The stream opened with a priming event: an id and empty data.
  const first = parseSse(original.text())[0];
  expect(first.id).toEqual(expect.any(String));
  expect(first.data ?? '').toBe('');
  expect(first.id).not.toBe(progressEventId);
  original.close();

  // The disconnect does not cancel: the handler finishes and its response lands in the store.
  await waitUntil(async () => (await storedMessages(eventStore, progressEventId)).some((message) => message.id === 2), 'the final response in the store', 2000);
  expect(flags).toMatchObject({ finished: 1, aborted: 0 });
  await a.close();

  // Instance B, given the progress event's id, replays the final response.
  const b = await start();
  const replay = await rawRequest(b.port, 'GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': progressEventId });
  expect(replay.status).toBe(200);
  expect(replay.contentType).toMatch(/^text\/event-stream/);
  expect(replay.headers['mcp-session-id']).toBeUndefined();
  expect(replay.text).toContain('"id":2');
  expect(replay.text).not.toContain('notifications/progress');
  expect(replay.final).toMatchObject({ id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } });
  await b.close();
});

test('resuming from the priming event replays the progress and the response', async () => {
  const eventStore = new InMemoryEventStore();
  const flags: Flags = { finished: 0, aborted: 0 };
  const a = await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) });
  const b = await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) });
  try {
    const original = await rawRequest(a.port, 'POST', modernCallHeaders('slow-progress'), MODERN_CALL('slow-progress', 5));
    const primingId = parseSse(original.text)[0].id!;
    const replay = await rawRequest(b.port, 'GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': primingId });
    expect(replay.messages.map((message) => message.method ?? `response ${message.id}`)).toEqual(['notifications/progress', 'response 5']);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a resume on the same instance while the request runs follows it live', async () => {
  const eventStore = new InMemoryEventStore();
  const flags: Flags = { finished: 0, aborted: 0 };
  const a = await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) });
  try {
    const progressEventId = await callGatedAndDisconnect(a, 7);

    const resumed = await openLive(a, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': progressEventId } });
    expect(resumed.status).toBe(200);
    await waitUntil(() => flags.release !== undefined, 'the gated handler to wait');
    flags.release!();
    const response = (await resumed.waitForMessage((message) => !('method' in message))) as any;
    expect(response).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'released' }] } });
    await resumed.ended;
    expect(resumed.messages().filter((message) => 'method' in message).map((message: any) => message.params.progress)).toEqual([2]);
  } finally {
    await a.close();
  }
});

test('a resume on the same instance just after the request finished, while its last events are still being stored, gets them (no streamLeases)', async () => {
  // Every write takes 150 ms: when the handler returns, its last progress and its response are not stored yet.
  class SlowEventStore extends InMemoryEventStore {
    override async storeEvent(...args: Parameters<InMemoryEventStore['storeEvent']>): Promise<string> {
      await sleep(150);
      return super.storeEvent(...args);
    }
  }
  const flags: Flags = { finished: 0, aborted: 0 };
  const a = await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore: new SlowEventStore() }) });
  try {
    const progressEventId = await callGatedAndDisconnect(a, 8);
    await waitUntil(() => flags.release !== undefined, 'the gated handler to wait');
    flags.release!();
    await sleep(20); // the handler has returned; its last two writes are still in the store's hands
    const resumed = await rawRequest(a.port, 'GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': progressEventId });
    expect(resumed.messages.map((message) => message.method ?? `response ${message.id}`)).toEqual(['notifications/progress', 'response 8']);
    expect(resumed.final).toMatchObject({ id: 8, result: { content: [{ type: 'text', text: 'released' }] } });
  } finally {
    await a.close();
  }
});

test('an unknown Last-Event-ID gets 200 with an empty SSE stream that ends at once (never another stream)', async () => {
  const eventStore = new InMemoryEventStore();
  const flags: Flags = { finished: 0, aborted: 0 };
  const a = await serve({ server: progressServer(flags), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore }) });
  try {
    const stored = await rawRequest(a.port, 'POST', modernCallHeaders('slow-progress'), MODERN_CALL('slow-progress', 9));
    expect(stored.final).toMatchObject({ id: 9, result: { resultType: 'complete' } });
    for (const lastEventId of ['not-an-id', 'unknown-stream#1']) {
      // rawRequest resolves only once the response has ended.
      const replay = await rawRequest(a.port, 'GET', { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, 'Last-Event-ID': lastEventId });
      expect(replay.status).toBe(200);
      expect(replay.contentType).toMatch(/^text\/event-stream/);
      expect(replay.headers['mcp-session-id']).toBeUndefined();
      expect(replay.text).toBe('');
      expect(replay.messages).toEqual([]);
    }
  } finally {
    await a.close();
  }
});

// Like LocalSessionManager, persisted stateless streams prime only clients of 2025-11-25 and later
// (PRIMING_MIN_VERSION), because older clients fail on an event with empty data.
test.each(['2025-03-26', '2025-06-18'])('a %s client gets no priming event (empty data) from a persisted stateless stream', async (version) => {
  const a = await serve({ server: progressServer({ finished: 0, aborted: 0 }), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore() }) });
  try {
    const reply = await rawRequest(
      a.port,
      'POST',
      legacyHeaders(version),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow-progress', arguments: {} } }),
    );
    expect(reply.status).toBe(200);
    expect(reply.final).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(parseSse(reply.text).filter((event) => (event.data ?? '') === '')).toEqual([]);
  } finally {
    await a.close();
  }
});

test('a 2025-11-25 client of a persisted stateless stream is primed', async () => {
  const a = await serve({ server: progressServer({ finished: 0, aborted: 0 }), sseKeepAlive: 0, sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore() }) });
  try {
    const reply = await rawRequest(
      a.port,
      'POST',
      legacyHeaders('2025-11-25'),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow-progress', arguments: {} } }),
    );
    const first = parseSse(reply.text)[0];
    expect(first.id).toEqual(expect.any(String));
    expect(first.data ?? '').toBe('');
    expect(reply.headers['mcp-session-id']).toBeUndefined();
  } finally {
    await a.close();
  }
});

// With an EventStore, successful 2026-07-28 replies are persisted SSE streams, but errors the dispatcher produces
// still answer JSON with their HTTP status (spec 2026-07-28 error table; the conformance suite requires 404 for
// removed methods and 400 for -32021), like header/envelope errors answered before dispatch.
describe('a persisted stateless server keeps the 2026-07-28 error statuses', () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern({ sessionManager: new NeverSessionManager({ eventStore: new InMemoryEventStore() }) });
  });
  afterAll(() => h.close());

  test('envelope errors (before dispatch) are JSON 400', async () => {
    const reply = await modern(h.port, { id: 1, method: 'tools/list', meta: null });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  test('a successful call is a resumable SSE stream', async () => {
    const reply = await callTool(h.port, 'echo', { text: 'x' }, { id: 2 });
    expect(reply.status).toBe(200);
    expect(reply.sse).toBe(true);
    expect(parseSse(reply.text)[0].id).toEqual(expect.any(String));
    expect(resultOf(reply).resultType).toBe('complete');
  });

  test('a removed method is 404 / -32601 as JSON', async () => {
    const reply = await modern(h.port, { id: 3, method: 'ping' });
    expect(reply.json).toMatchObject({ id: 3, error: { code: -32601 } });
    expect(reply.status).toBe(404);
  });

  test('a missing client capability is 400 / -32021 as JSON', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 4 });
    expect(reply.json).toMatchObject({ id: 4, error: { code: -32021 } });
    expect(reply.status).toBe(400);
  });
});
