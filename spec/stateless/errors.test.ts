/**
 * The 2026-07-28 error table (spec basic/transports + basic/index, SEP-2575): each row with its exact HTTP status,
 * JSON-RPC code and the request id echoed; and which error wins when several things are wrong at once, in the
 * order lib/http/stateless-post.ts checks them:
 *   version header missing → header/_meta version mismatch → version unsupported → (notification: 202)
 *   → Mcp-Method / Mcp-Name / Mcp-Param-* → required _meta keys → method (removed/unknown: 404) → capability.
 */
import { callTool, envelope, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, modern, MODERN, rawRequest, resultOf, startModern, type ModernHarness, type Reply } from '../helpers/modern.js';

let h: ModernHarness;
beforeAll(async () => {
  h = await startModern();
});
afterAll(() => h.close());

function expectError(reply: Reply, status: number, code: number, id: string | number): any {
  expect({ status: reply.status, code: reply.json?.error?.code, id: reply.json?.id }).toEqual({ status, code, id });
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.json.jsonrpc).toBe('2.0');
  expect(typeof reply.json.error.message).toBe('string');
  expect(reply.headers['mcp-session-id']).toBeUndefined();
  return reply.json.error;
}

describe('required _meta keys → 400 / -32602', () => {
  test('no _meta at all (header 2026-07-28 present)', async () => {
    const reply = await modern(h.port, { id: 101, method: 'server/discover', meta: null });
    expectError(reply, 400, -32602, 101);
  });

  test('_meta without protocolVersion', async () => {
    const reply = await modern(h.port, { id: 102, method: 'server/discover', meta: envelope({ [META_PROTOCOL_VERSION]: undefined }) });
    expectError(reply, 400, -32602, 102);
  });

  test('_meta without clientCapabilities', async () => {
    const reply = await modern(h.port, { id: 104, method: 'server/discover', meta: envelope({ [META_CLIENT_CAPABILITIES]: undefined }) });
    const error = expectError(reply, 400, -32602, 104);
    expect(error.message).toContain(META_CLIENT_CAPABILITIES);
  });

  test('clientCapabilities that is not an object', async () => {
    const reply = await modern(h.port, { id: 'caps-array', method: 'tools/list', meta: envelope({ [META_CLIENT_CAPABILITIES]: ['sampling'] }) });
    expectError(reply, 400, -32602, 'caps-array');
  });

  test('clientInfo is optional: 200 without it', async () => {
    const reply = await modern(h.port, { id: 105, method: 'server/discover', meta: envelope({ [META_CLIENT_INFO]: undefined }) });
    expect(reply.status).toBe(200);
    expect(reply.final).toMatchObject({ id: 105, result: { resultType: 'complete' } });
  });

  test('an empty clientCapabilities object counts as present', async () => {
    const reply = await modern(h.port, { id: 106, method: 'tools/list', meta: envelope({}, {}) });
    expect(reply.status).toBe(200);
    expect(resultOf(reply).tools.length).toBeGreaterThan(0);
  });

  test('a string id is echoed as a string', async () => {
    const reply = await modern(h.port, { id: 'abc-1', method: 'tools/list', meta: null });
    expectError(reply, 400, -32602, 'abc-1');
  });
});

describe('MCP-Protocol-Version header → 400 / -32020 or -32022', () => {
  test('header missing while _meta names 2026-07-28 → -32020', async () => {
    const reply = await modern(h.port, { id: 201, method: 'tools/list', headers: { 'MCP-Protocol-Version': undefined } });
    expectError(reply, 400, -32020, 201);
  });

  test('header differs from _meta → -32020 (checked before version support)', async () => {
    const reply = await modern(h.port, { id: 302, method: 'server/discover', meta: envelope({ [META_PROTOCOL_VERSION]: 'v999.0.0' }) });
    expectError(reply, 400, -32020, 302);
  });

  test('header 2026-07-28 but _meta names a session-era version → -32020', async () => {
    const reply = await modern(h.port, { id: 303, method: 'tools/list', meta: envelope({ [META_PROTOCOL_VERSION]: '2025-11-25' }) });
    expectError(reply, 400, -32020, 303);
  });

  test('both v999.0.0 → -32022 with data.supported and data.requested', async () => {
    const reply = await modern(h.port, {
      id: 301,
      method: 'server/discover',
      meta: envelope({ [META_PROTOCOL_VERSION]: 'v999.0.0' }),
      headers: { 'MCP-Protocol-Version': 'v999.0.0' },
    });
    const error = expectError(reply, 400, -32022, 301);
    expect(error.data.requested).toBe('v999.0.0');
    expect(Array.isArray(error.data.supported)).toBe(true);
    expect(error.data.supported).toContain(MODERN);
    // Every version the error offers is one discover lists.
    const discover = resultOf(await modern(h.port, { method: 'server/discover' }));
    for (const version of error.data.supported) expect(discover.supportedVersions).toContain(version);
  });

  test('an unknown future date in both places → -32022 echoing it', async () => {
    const reply = await modern(h.port, {
      id: 304,
      method: 'tools/list',
      meta: envelope({ [META_PROTOCOL_VERSION]: '2099-01-01' }),
      headers: { 'MCP-Protocol-Version': '2099-01-01' },
    });
    expect(expectError(reply, 400, -32022, 304).data.requested).toBe('2099-01-01');
  });
});

describe('methods 2026-07-28 removed, and unknown methods → 404 / -32601', () => {
  test.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method'])('%s', async (method) => {
    const reply = await modern(h.port, { id: 500, method });
    expectError(reply, 404, -32601, 500);
  });

  test('logging/setLevel with a valid level and resources/subscribe with a valid uri are still 404 (method first, params never looked at)', async () => {
    const setLevel = await modern(h.port, { id: 501, method: 'logging/setLevel', params: { level: 'debug' } });
    expectError(setLevel, 404, -32601, 501);
    const subscribe = await modern(h.port, { id: 502, method: 'resources/subscribe', params: { uri: 'test://static-text' } });
    expectError(subscribe, 404, -32601, 502);
  });
});

describe('missing client capability → 400 / -32021', () => {
  test('a tool needing sampling, called with clientCapabilities {}', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 401 });
    const error = expectError(reply, 400, -32021, 401);
    expect(error.data.requiredCapabilities).toEqual({ sampling: {} });
    expect(typeof error.data.requiredCapabilities.sampling).toBe('object');
  });

  test('declaring elicitation only is not enough for sampling', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 402, meta: envelope({}, { elicitation: {} }) });
    expect(expectError(reply, 400, -32021, 402).data.requiredCapabilities).toHaveProperty('sampling');
  });

  test('with sampling declared the tool runs (and asks for input instead of failing)', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 403, meta: envelope({}, { sampling: {} }) });
    expect(reply.status).toBe(200);
    expect(resultOf(reply).resultType).toBe('input_required');
  });

  test('capabilities are never inferred from an earlier request', async () => {
    await callTool(h.port, 'needs_sampling', {}, { meta: envelope({}, { sampling: {} }) });
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 404 });
    expectError(reply, 400, -32021, 404);
  });
});

describe('other errors keep the id and a JSON body', () => {
  test('unknown tool → -32602 (not 404)', async () => {
    const reply = await callTool(h.port, 'no_such_tool', {}, { id: 601 });
    expect(reply.json).toMatchObject({ id: 601, error: { code: -32602 } });
    expect(reply.status).toBe(400);
  });

  test('a JSON-RPC response body from a 2026 client → 400 / -32600', async () => {
    const reply = await rawRequest(
      h.port,
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' },
      JSON.stringify({ jsonrpc: '2.0', id: 77, result: { _meta: envelope() } }),
    );
    // The body has no _meta at params level, so it is classified by its header; a response is never accepted.
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe(-32600);
    expect(reply.json.id).toBe(77);
  });

  test('id 0 is echoed (not mistaken for a missing id)', async () => {
    const reply = await modern(h.port, { id: 0, method: 'tools/list', meta: null });
    expectError(reply, 400, -32602, 0);
    const ok = await modern(h.port, { id: 0, method: 'tools/list' });
    expect(ok.json).toMatchObject({ id: 0, result: { resultType: 'complete' } });
  });

  test('params absent altogether (header 2026-07-28) → 400 / -32602', async () => {
    const reply = await rawRequest(
      h.port,
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'server/discover' },
      JSON.stringify({ jsonrpc: '2.0', id: 103, method: 'server/discover' }),
    );
    expectError(reply, 400, -32602, 103);
  });

  test('a JSON-RPC batch with header 2026-07-28 → 400 / -32600', async () => {
    const reply = await rawRequest(
      h.port,
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' },
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } }]),
    );
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe(-32600);
  });

  test('a notification with a modern envelope → 202, no body', async () => {
    const reply = await rawRequest(
      h.port,
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/cancelled' },
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } }),
    );
    expect(reply.status).toBe(202);
    expect(reply.text).toBe('');
  });
});

describe('precedence when several things are wrong at once', () => {
  test('missing version header beats a mismatched _meta version and missing capabilities', async () => {
    const reply = await modern(h.port, {
      id: 701,
      method: 'tools/list',
      meta: envelope({ [META_PROTOCOL_VERSION]: 'v999.0.0', [META_CLIENT_CAPABILITIES]: undefined }),
      headers: { 'MCP-Protocol-Version': undefined, 'Mcp-Method': undefined },
    });
    expect(expectError(reply, 400, -32020, 701).message).toMatch(/MCP-Protocol-Version/);
  });

  test('header/_meta mismatch beats an unsupported version', async () => {
    const reply = await modern(h.port, {
      id: 702,
      method: 'tools/list',
      meta: envelope({ [META_PROTOCOL_VERSION]: 'v999.0.0' }),
      headers: { 'MCP-Protocol-Version': 'v998.0.0' },
    });
    expectError(reply, 400, -32020, 702);
  });

  test('an unsupported version beats a bad Mcp-Method, missing capabilities and a removed method', async () => {
    const reply = await modern(h.port, {
      id: 703,
      method: 'ping',
      meta: envelope({ [META_PROTOCOL_VERSION]: 'v999.0.0', [META_CLIENT_CAPABILITIES]: undefined }),
      headers: { 'MCP-Protocol-Version': 'v999.0.0', 'Mcp-Method': 'wrong' },
    });
    expectError(reply, 400, -32022, 703);
  });

  test('a bad Mcp-Method beats missing capabilities', async () => {
    const reply = await modern(h.port, {
      id: 704,
      method: 'tools/list',
      meta: envelope({ [META_CLIENT_CAPABILITIES]: undefined }),
      headers: { 'Mcp-Method': 'prompts/list' },
    });
    expect(expectError(reply, 400, -32020, 704).message).toMatch(/Mcp-Method/);
  });

  test('a missing Mcp-Name beats a missing-capability tool', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 705, headers: { 'Mcp-Name': undefined } });
    expect(expectError(reply, 400, -32020, 705).message).toMatch(/Mcp-Name/);
  });

  test('a bad Mcp-Method beats a removed method (404 comes after header checks)', async () => {
    const reply = await modern(h.port, { id: 706, method: 'initialize', headers: { 'Mcp-Method': 'tools/list' } });
    expectError(reply, 400, -32020, 706);
  });

  test('missing _meta keys beat a removed method', async () => {
    const reply = await modern(h.port, { id: 707, method: 'ping', meta: envelope({ [META_CLIENT_CAPABILITIES]: undefined }) });
    expectError(reply, 400, -32602, 707);
  });

  test('a removed method beats nothing else being wrong: 404', async () => {
    const reply = await modern(h.port, { id: 708, method: 'ping' });
    expectError(reply, 404, -32601, 708);
  });

  test('a mismatched Mcp-Param beats a missing capability', async () => {
    const reply = await callTool(h.port, 'region_sampler', { region: 'eu' }, { id: 709, headers: { 'Mcp-Param-Region': 'us' } });
    expectError(reply, 400, -32020, 709);
    // The same call with a matching header reaches the capability check.
    const matching = await callTool(h.port, 'region_sampler', { region: 'eu' }, { id: 711, headers: { 'Mcp-Param-Region': 'eu' } });
    expectError(matching, 400, -32021, 711);
  });

  test('missing _meta keys beat a missing capability', async () => {
    const reply = await callTool(h.port, 'needs_sampling', {}, { id: 710, meta: envelope({ [META_CLIENT_CAPABILITIES]: undefined }) });
    expectError(reply, 400, -32602, 710);
  });
});
