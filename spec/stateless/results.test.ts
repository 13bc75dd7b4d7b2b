/**
 * 2026-07-28 results: every result carries `resultType`; list/read/discover results carry SEP-2549 cache hints
 * (`ttlMs`, `cacheScope`, configurable on the McpServer); `server/discover` replaces initialize; an unknown
 * resource is -32602 with `data.uri`; `notifications/message` only when the request's `_meta` sets a log level.
 */
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import { envelope, META_LOG_LEVEL, META_SERVER_INFO, modern, MODERN, resultOf, startModern, callTool, type ModernHarness } from '../helpers/modern.js';

const CACHEABLE: Array<[string, Record<string, unknown> | undefined]> = [
  ['tools/list', undefined],
  ['prompts/list', undefined],
  ['resources/list', undefined],
  ['resources/templates/list', undefined],
  ['resources/read', { uri: 'test://static-text' }],
  ['server/discover', undefined],
];

describe('with the default cache settings', () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern();
  });
  afterAll(() => h.close());

  test.each(CACHEABLE)('%s carries resultType complete, ttlMs and cacheScope', async (method, params) => {
    const result = resultOf(await modern(h.port, { method, params }));
    expect(result.resultType).toBe('complete');
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
    expect(['public', 'private']).toContain(result.cacheScope);
    expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
  });

  test.each([
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
    ['prompts/get', { name: 'simple_prompt' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'simple_prompt' }, argument: { name: 'a', value: '' } }],
  ])('%s carries resultType complete and no cache hints', async (method, params) => {
    const result = resultOf(await modern(h.port, { method, params }));
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('ttlMs');
    expect(result).not.toHaveProperty('cacheScope');
  });

  test('a tool error result is still a complete result', async () => {
    const result = resultOf(await callTool(h.port, 'count_tool', { count: 'not a number' }, { headers: { 'Mcp-Param-Count': 'not a number' } }));
    expect(result).toMatchObject({ resultType: 'complete', isError: true });
  });

  test('server/discover: supported versions, capabilities, instructions and serverInfo in _meta', async () => {
    const reply = await modern(h.port, { id: 201, method: 'server/discover' });
    expect(reply.status).toBe(200);
    expect(reply.final.id).toBe(201);
    const result = resultOf(reply);
    expect(result.supportedVersions).toEqual(expect.arrayContaining([MODERN, '2025-11-25', '2025-06-18', '2025-03-26']));
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} });
    expect(result.instructions).toBe('Stateless test server');
    expect(result._meta[META_SERVER_INFO]).toEqual({ name: 'stateless-spec', version: '2.0.0' });
    expect(result).not.toHaveProperty('serverInfo');
    expect(result).not.toHaveProperty('protocolVersion');
  });

  test('server/discover works with clientCapabilities {} and without clientInfo', async () => {
    const reply = await modern(h.port, { method: 'server/discover', meta: envelope({ 'io.modelcontextprotocol/clientInfo': undefined }) });
    expect(resultOf(reply).supportedVersions).toContain(MODERN);
  });

  test('advertised capabilities match the handlers', async () => {
    const { capabilities } = resultOf(await modern(h.port, { method: 'server/discover' }));
    expect(Array.isArray(resultOf(await modern(h.port, { method: 'tools/list' })).tools)).toBe(capabilities.tools !== undefined);
    expect(Array.isArray(resultOf(await modern(h.port, { method: 'prompts/list' })).prompts)).toBe(capabilities.prompts !== undefined);
  });

  test('a resource that does not exist → -32602 with data.uri (never an empty contents)', async () => {
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    const reply = await modern(h.port, { id: 301, method: 'resources/read', params: { uri } });
    expect(reply.json).toMatchObject({ id: 301, error: { code: -32602, data: { uri } } });
    expect(reply.status).toBe(400);
    expect(reply.json.result).toBeUndefined();
  });

  test('a template resource reads with cache hints', async () => {
    const result = resultOf(await modern(h.port, { method: 'resources/read', params: { uri: 'test://template/123/data' } }));
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    expect(result.contents[0].text).toContain('123');
  });
});

describe('with configured cache settings', () => {
  test.each(CACHEABLE)('%s carries the configured ttlMs/cacheScope', async (method, params) => {
    const h = await startModern({}, { cache: { ttlMs: 300_000, cacheScope: 'private' } });
    try {
      const result = resultOf(await modern(h.port, { method, params }));
      expect(result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'private' });
    } finally {
      await h.close();
    }
  });

  test('only ttlMs configured keeps the default scope', async () => {
    const h = await startModern({}, { cache: { ttlMs: 5000 } });
    try {
      expect(resultOf(await modern(h.port, { method: 'tools/list' }))).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
    } finally {
      await h.close();
    }
  });
});

describe('logging is opt-in per request', () => {
  let h: ModernHarness;
  beforeAll(async () => {
    h = await startModern();
  });
  afterAll(() => h.close());

  test('without _meta logLevel no notifications/message is sent (and the reply is plain JSON)', async () => {
    const reply = await callTool(h.port, 'log_tool', {}, { id: 401 });
    expect(reply.status).toBe(200);
    expect(reply.messages.filter((message) => message.method === 'notifications/message')).toEqual([]);
    expect(reply.sse).toBe(false);
    expect(resultOf(reply)).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'logged' }] });
  });

  test('with logLevel debug every message arrives on the SSE stream before the result', async () => {
    const reply = await callTool(h.port, 'log_tool', {}, { id: 402, meta: envelope({ [META_LOG_LEVEL]: 'debug' }) });
    expect(reply.sse).toBe(true);
    const logs = reply.messages.filter((message) => message.method === 'notifications/message');
    expect(logs.map((message) => message.params.level)).toEqual(['debug', 'info', 'warning', 'error']);
    expect(logs[0].params).toMatchObject({ data: 'debug message', logger: 'log_tool' });
    expect(reply.messages.at(-1)).toMatchObject({ id: 402, result: { resultType: 'complete' } });
  });

  test('with logLevel warning only warning and above arrive', async () => {
    const reply = await callTool(h.port, 'log_tool', {}, { meta: envelope({ [META_LOG_LEVEL]: 'warning' }) });
    const logs = reply.messages.filter((message) => message.method === 'notifications/message');
    expect(logs.map((message) => message.params.level)).toEqual(['warning', 'error']);
  });

  test('the level of one request does not leak into the next', async () => {
    await callTool(h.port, 'log_tool', {}, { meta: envelope({ [META_LOG_LEVEL]: 'debug' }) });
    const reply = await callTool(h.port, 'log_tool', {});
    expect(reply.messages.filter((message) => message.method === 'notifications/message')).toEqual([]);
  });

  test('an unknown logLevel value is ignored (no logs, no error)', async () => {
    const reply = await callTool(h.port, 'log_tool', {}, { meta: envelope({ [META_LOG_LEVEL]: 'verbose' }) });
    expect(reply.status).toBe(200);
    expect(reply.messages.filter((message) => message.method === 'notifications/message')).toEqual([]);
  });
});

describe('the result a handler returns', () => {
  // One object returned on every call: resultType is added to a copy, never to the handler's object.
  const shared = Object.freeze({ content: [Object.freeze({ type: 'text', text: 'shared' })] });
  // A result built by JSON.parse with an own "__proto__" key: the key stays a key of the copy.
  const parsed = JSON.parse('{"content":[{"type":"text","text":"parsed"}],"__proto__":{"polluted":true},"structuredContent":{"n":1}}');
  let h: ModernHarness;
  beforeAll(async () => {
    const server = new McpServer({ name: 'results', version: '1.0.0' });
    server.tool('shared', { description: 'returns one frozen object' }, async () => shared);
    server.tool('parsed', { description: 'returns a JSON.parse result', inputSchema: { n: z.number().optional() } }, async () => parsed);
    h = await startModern({ server });
  });
  afterAll(() => h.close());

  test('a shared (even frozen) result object is copied, not changed, and answers every call the same', async () => {
    for (let i = 0; i < 2; i++) {
      const reply = await callTool(h.port, 'shared');
      expect(reply.status).toBe(200);
      expect(resultOf(reply)).toEqual({ content: [{ type: 'text', text: 'shared' }], resultType: 'complete' });
    }
    expect(Object.keys(shared)).toEqual(['content']);
  });

  test('an own "__proto__" key of the result is sent as a key, and the copy keeps its prototype', async () => {
    const reply = await callTool(h.port, 'parsed');
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('"__proto__":{"polluted":true}');
    const result = resultOf(reply);
    expect(Object.keys(result)).toEqual(['content', '__proto__', 'structuredContent', 'resultType']);
    expect(result.structuredContent).toEqual({ n: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
