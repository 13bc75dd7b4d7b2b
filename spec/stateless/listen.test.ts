/**
 * `subscriptions/listen` (2026-07-28, basic/patterns/subscriptions): a long-lived SSE response that starts with
 * `notifications/subscriptions/acknowledged` (the honoured subset), tags every message with
 * `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request id, carries only opted-in notifications,
 * is capped by `maxSubscriptions` (503), and ends with a `complete` result on `middleware.close()`.
 */
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import { openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { buildModernServer, callTool, META_SUBSCRIPTION_ID, modern, modernBody, modernHeaders, sleep, startModern, waitUntil, type ModernHarness } from '../helpers/modern.js';
import { serve } from '../helpers/serve.js';

type Filter = { toolsListChanged?: boolean; promptsListChanged?: boolean; resourcesListChanged?: boolean; resourceSubscriptions?: string[]; [key: string]: unknown };

const open: LiveResponse[] = [];
let h: ModernHarness;

async function listen(id: string | number, notifications: Filter, target: Pick<ModernHarness, 'port'> = h): Promise<LiveResponse> {
  const body = modernBody({ id, method: 'subscriptions/listen', params: { notifications } });
  const live = await openLive(target, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined), body });
  open.push(live);
  return live;
}

const notifications = (live: LiveResponse) => live.messages().filter((message) => 'method' in message) as Array<{ method: string; params: any }>;
const methods = (live: LiveResponse) => notifications(live).map((message) => message.method);

/** Waits until `live` has received `count` notifications. */
const waitForCount = (live: LiveResponse, count: number) => live.waitFor(() => notifications(live).length >= count);

/** Gives the server time to deliver anything it (wrongly) would, so absence can be asserted. */
const settle = () => sleep(60);

beforeEach(async () => {
  h = await startModern();
});
afterEach(async () => {
  for (const live of open.splice(0)) live.close();
  await h.close();
});

test('the first message acknowledges the honoured subset, tagged with the listen id', async () => {
  const live = await listen(7001, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://static-text'] });
  expect(live.status).toBe(200);
  expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(live.headers['mcp-session-id']).toBeUndefined();
  await waitForCount(live, 1);
  expect(live.messages()[0]).toEqual({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: {
      notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://static-text'] },
      _meta: { [META_SUBSCRIPTION_ID]: 7001 },
    },
  });
});

test('only what the server can deliver is honoured', async () => {
  const toolsOnly = new McpServer({ name: 'tools-only', version: '1.0.0' });
  toolsOnly.tool('t', { description: 't' }, () => ({ content: [] }));
  const other = await startModern({ server: toolsOnly });
  try {
    const live = await listen('only', { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://x'], fooChanged: true }, other);
    await waitForCount(live, 1);
    expect(notifications(live)[0].params.notifications).toEqual({ toolsListChanged: true });
    // A list_changed for something not honoured never arrives.
    toolsOnly.notifyPromptsListChanged();
    toolsOnly.notifyResourceUpdated('test://x');
    toolsOnly.notifyToolsListChanged();
    await waitForCount(live, 2);
    await settle();
    expect(methods(live)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    live.close();
  } finally {
    await other.close();
  }
});

test('a false or absent opt-in is not honoured', async () => {
  const live = await listen('falsy', { toolsListChanged: false });
  await waitForCount(live, 1);
  expect(notifications(live)[0].params.notifications).toEqual({});
  h.server.notifyToolsListChanged();
  await settle();
  expect(methods(live)).toEqual(['notifications/subscriptions/acknowledged']);
});

test('registering and removing a tool at runtime reaches tools listeners only, tagged with each listen id', async () => {
  const tools = await listen('tools-sub', { toolsListChanged: true });
  const prompts = await listen('prompts-sub', { promptsListChanged: true });
  await Promise.all([waitForCount(tools, 1), waitForCount(prompts, 1)]);

  const added = h.server.tool('runtime_tool', { description: 'added at runtime', inputSchema: { x: z.number() } }, ({ x }) => ({ content: [{ type: 'text', text: String(x) }] }));
  await waitForCount(tools, 2);
  added.remove();
  await waitForCount(tools, 3);
  await settle();

  expect(methods(tools)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/tools/list_changed']);
  for (const message of notifications(tools)) expect(message.params._meta[META_SUBSCRIPTION_ID]).toBe('tools-sub');
  expect(methods(prompts)).toEqual(['notifications/subscriptions/acknowledged']);
});

test('registering a prompt and notifyPromptsListChanged reach prompts listeners only', async () => {
  const tools = await listen(1, { toolsListChanged: true });
  const prompts = await listen(2, { promptsListChanged: true });
  await Promise.all([waitForCount(tools, 1), waitForCount(prompts, 1)]);
  const prompt = h.server.prompt('runtime_prompt', { description: 'runtime' }, () => ({ messages: [] }));
  h.server.notifyPromptsListChanged();
  prompt.remove();
  await waitForCount(prompts, 4);
  await settle();
  expect(methods(prompts)).toEqual(['notifications/subscriptions/acknowledged', ...Array(3).fill('notifications/prompts/list_changed')]);
  for (const message of notifications(prompts)) expect(message.params._meta[META_SUBSCRIPTION_ID]).toBe(2);
  expect(methods(tools)).toEqual(['notifications/subscriptions/acknowledged']);
});

test('a trigger tool called over 2026 HTTP notifies an open listen (conformance shape)', async () => {
  h.server.tool('test_trigger_tool_change', { description: 'notifies' }, () => {
    h.server.notifyToolsListChanged();
    return { content: [{ type: 'text', text: 'Mutation triggered' }] };
  });
  const live = await listen(Date.now(), { toolsListChanged: true });
  await waitForCount(live, 1);
  // Registering the trigger tool above happened before the listen opened, so only the call notifies.
  const reply = await callTool(h.port, 'test_trigger_tool_change');
  expect(reply.final.result.resultType).toBe('complete');
  await waitForCount(live, 2);
  expect(notifications(live)[1]).toMatchObject({ method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION_ID]: expect.any(Number) } } });
});

test('resourceSubscriptions filter resources/updated by URI', async () => {
  const live = await listen('res', { resourceSubscriptions: ['test://static-text', 'test://template/1/data'] });
  const none = await listen('none', { toolsListChanged: true });
  await Promise.all([waitForCount(live, 1), waitForCount(none, 1)]);
  h.server.notifyResourceUpdated('test://other');
  h.server.notifyResourceUpdated('test://static-text');
  h.server.notifyResourceUpdated('test://template/2/data');
  h.server.notifyResourceUpdated('test://template/1/data');
  await waitForCount(live, 3);
  await settle();
  const updates = notifications(live).slice(1);
  expect(updates.map((message) => [message.method, message.params.uri, message.params._meta[META_SUBSCRIPTION_ID]])).toEqual([
    ['notifications/resources/updated', 'test://static-text', 'res'],
    ['notifications/resources/updated', 'test://template/1/data', 'res'],
  ]);
  expect(methods(none)).toEqual(['notifications/subscriptions/acknowledged']);
});

test('resourcesListChanged opt-in gets resources/list_changed only', async () => {
  const live = await listen('rl', { resourcesListChanged: true });
  await waitForCount(live, 1);
  h.server.notifyResourceUpdated('test://static-text');
  h.server.notifyToolsListChanged();
  const resource = h.server.resource('later', 'test://later', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'x' }] }));
  await waitForCount(live, 2);
  resource.remove();
  await waitForCount(live, 3);
  await settle();
  expect(methods(live)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/resources/list_changed', 'notifications/resources/list_changed']);
});

test('a listen is validated like any 2026 request (header and envelope errors are JSON)', async () => {
  const badHeader = await modern(h.port, { id: 'l1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } }, headers: { 'Mcp-Method': 'tools/list' } });
  expect(badHeader.status).toBe(400);
  expect(badHeader.json).toMatchObject({ id: 'l1', error: { code: -32020 } });
  const noCaps = await modern(h.port, { id: 'l2', method: 'subscriptions/listen', params: { notifications: {} }, meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
  expect(noCaps.status).toBe(400);
  expect(noCaps.json).toMatchObject({ id: 'l2', error: { code: -32602 } });
});

describe('maxSubscriptions', () => {
  test('the listen beyond the cap gets 503 (JSON, id echoed); a slot frees when a listener leaves', async () => {
    const capped = await startModern({ maxSubscriptions: 2 });
    try {
      const first = await listen('a', { toolsListChanged: true }, capped);
      const second = await listen('b', { toolsListChanged: true }, capped);
      await Promise.all([waitForCount(first, 1), waitForCount(second, 1)]);
      const third = await modern(capped.port, { id: 'c', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });
      expect(third.status).toBe(503);
      expect(third.contentType).toMatch(/^application\/json/);
      expect(third.json).toMatchObject({ id: 'c', error: { code: expect.any(Number) } });
      expect(third.headers['retry-after']).toBeDefined();

      // Ordinary requests are not capped.
      expect((await modern(capped.port, { method: 'tools/list' })).status).toBe(200);

      first.close();
      await first.ended;
      let fourth: LiveResponse | undefined;
      const deadline = Date.now() + 2000;
      while (!fourth) {
        const candidate = await listen('d', { toolsListChanged: true }, capped);
        await candidate.waitFor((text) => text.length > 0).catch(() => undefined);
        if (candidate.status === 200) fourth = candidate;
        else if (Date.now() > deadline) throw new Error(`slot never freed: ${candidate.status} ${candidate.text()}`);
        else await sleep(20);
      }
      await waitForCount(fourth, 1);
      expect(notifications(fourth)[0].params._meta[META_SUBSCRIPTION_ID]).toBe('d');
    } finally {
      for (const live of open.splice(0)) live.close();
      await capped.close();
    }
  });
});

describe('middleware.close()', () => {
  test('ends every open listen with a complete result carrying its subscription id', async () => {
    const a = await listen('close-a', { toolsListChanged: true });
    const b = await listen(42, { promptsListChanged: true });
    await Promise.all([waitForCount(a, 1), waitForCount(b, 1)]);
    await h.middleware.close();
    await Promise.all([a.ended, b.ended]);
    expect(a.messages().at(-1)).toEqual({ jsonrpc: '2.0', id: 'close-a', result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: 'close-a' } } });
    expect(b.messages().at(-1)).toEqual({ jsonrpc: '2.0', id: 42, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: 42 } } });
    // Nothing arrives after the final result.
    h.server.notifyToolsListChanged();
    await settle();
    expect(a.messages().at(-1)).toHaveProperty('result');
  });

  test('a listener that already left is not written to on close', async () => {
    // Records, per listen request, what the middleware writes to its response, and what it writes after it closed.
    const written = new Map<string, string[]>();
    const afterClose = new Map<string, string[]>();
    const closed = new Set<string>();
    const spied = await serve({ server: buildModernServer(), sseKeepAlive: 0 }, (app) =>
      app.use((req, res, next) => {
        const id = String(req.headers['x-listener'] ?? '');
        written.set(id, []);
        afterClose.set(id, []);
        res.on('close', () => closed.add(id));
        const record = (chunk: unknown) => {
          if (chunk === undefined || typeof chunk === 'function') return;
          written.get(id)!.push(String(chunk));
          if (closed.has(id)) afterClose.get(id)!.push(String(chunk));
        };
        const { write, end } = res;
        res.write = ((chunk: unknown, ...rest: unknown[]) => (record(chunk), (write as Function).call(res, chunk, ...rest))) as typeof res.write;
        res.end = ((chunk?: unknown, ...rest: unknown[]) => (record(chunk), (end as Function).call(res, chunk, ...rest))) as typeof res.end;
        next();
      }),
    );
    try {
      const open = async (id: string) => {
        const body = modernBody({ id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });
        const live = await openLive(spied, { method: 'POST', headers: { ...modernHeaders('subscriptions/listen', undefined), 'X-Listener': id }, body });
        await waitForCount(live, 1);
        return live;
      };
      const [gone, stays] = [await open('gone'), await open('stays')];
      gone.close();
      await gone.ended;
      await waitUntil(() => closed.has('gone'), 'the server to see the listener leave');
      await spied.middleware.close();
      await stays.ended;
      // The listener still connected got its final result; the one that had left got nothing at all.
      expect(stays.messages().at(-1)).toEqual({ jsonrpc: '2.0', id: 'stays', result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: 'stays' } } });
      expect(written.get('stays')!.join('')).toContain('"resultType":"complete"'); // the spy sees the middleware's writes
      expect(written.get('gone')!.join('')).toContain('notifications/subscriptions/acknowledged');
      expect(afterClose.get('gone')).toEqual([]);
    } finally {
      await spied.close();
    }
  });
});
