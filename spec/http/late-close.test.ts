/**
 * A client that disconnects before the middleware runs (here: while an async middleware mounted before it waits,
 * like an auth check or a session restore) gets no second 'close' event. The HTTP layer must notice that the
 * response is already closed: a listen slot is freed, a GET stream is not left as the session's primary, and a
 * 2026-07-28 handler is cancelled.
 */
import express from 'express';
import http from 'node:http';
import { type Harness, openGet, openLive, openSession, sleep, startHarness } from '../helpers/http-helpers.js';
import { buildModernServer, modernBody, modernHeaders } from '../helpers/modern.js';
import { serve, type Served } from '../helpers/serve.js';

/** Parses JSON bodies, then waits like an async auth middleware would, before the MCP middleware runs. */
const slowUpstream = (app: express.Express) => {
  app.use(express.json());
  app.use((_req, _res, next) => setTimeout(next, 100));
};

/** Sends a whole request, then drops the connection after `afterMs` (before the middleware gets to it). */
function abandon(port: number, method: string, headers: Record<string, string>, body?: unknown, afterMs = 20): Promise<void> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method,
      headers: payload === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(payload)) },
      agent: false,
    });
    req.on('error', () => undefined);
    if (payload !== undefined) req.write(payload);
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, afterMs);
  });
}

/** Lets the delayed middleware run for the abandoned request. */
const afterUpstream = () => sleep(250);

describe('subscriptions/listen', () => {
  let s: Served;
  beforeEach(async () => {
    s = await serve({ server: buildModernServer(), sseKeepAlive: 0, maxSubscriptions: 1 }, slowUpstream);
  });
  afterEach(() => s.close());

  const listenBody = (id: string) => modernBody({ id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });

  test('a listen whose client left before the middleware ran frees its slot', async () => {
    await abandon(s.port, 'POST', modernHeaders('subscriptions/listen', undefined), listenBody('gone'));
    await afterUpstream();
    const live = await openLive(s, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined), body: listenBody('next') });
    try {
      expect(live.status).toBe(200);
      await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/subscriptions/acknowledged', 2000);
    } finally {
      live.close();
    }
  });

  test('three abandoned listens do not fill maxSubscriptions', async () => {
    await Promise.all([1, 2, 3].map((n) => abandon(s.port, 'POST', modernHeaders('subscriptions/listen', undefined), listenBody(`gone-${n}`))));
    await afterUpstream();
    const live = await openLive(s, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined), body: listenBody('after') });
    try {
      expect(live.status).toBe(200);
    } finally {
      live.close();
    }
  });
});

describe('GET standalone stream', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ sseKeepAlive: 0 }, slowUpstream);
  });
  afterEach(() => h.close());

  test.each(['2025-06-18', '2025-11-25'])('a GET abandoned before the middleware ran does not stay the primary stream (%s)', async (version) => {
    const sessionId = await openSession(h, version);
    await abandon(h.port, 'GET', { Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': version });
    await afterUpstream();
    const live = await openGet(h, version, sessionId);
    try {
      expect(live.status).toBe(200);
      h.server.notifyToolsListChanged();
      await live.waitForMessage((message) => 'method' in message && message.method === 'notifications/tools/list_changed', 1500);
    } finally {
      live.close();
    }
  });
});

describe('2026-07-28 tools/call', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ sseKeepAlive: 0 }, slowUpstream);
  });
  afterEach(() => h.close());

  test('a call whose client left before the middleware ran is cancelled (ctx.signal aborts)', async () => {
    const params = { name: 'block', arguments: {} };
    await abandon(h.port, 'POST', modernHeaders('tools/call', params), modernBody({ id: 'late-call', method: 'tools/call', params }));
    await h.probe.until(() => h.probe.started.has('late-call'), 2000);
    await h.probe.until(() => h.probe.aborted.has('late-call'), 2000);
    expect(h.probe.started.get('late-call')!.signal.aborted).toBe(true);
  });
});
