/**
 * SEP-2243 standard headers on 2026-07-28 requests: `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` must mirror the
 * body; a missing/mismatched/invalid one is 400 / -32020 with the id echoed. Names are case-insensitive, values
 * case-sensitive after trimming; `=?base64?…?=` values are decoded strictly; integers compare numerically.
 * Requests go out over raw node:http so header names keep the case written here.
 */
import { rawHttp, parseRawResponse } from '../helpers/http-helpers.js';
import { callTool, envelope, modern, modernBody, MODERN, resultOf, startModern, textOf, type ModernHarness, type Reply } from '../helpers/modern.js';

let h: ModernHarness;
beforeAll(async () => {
  h = await startModern();
});
afterAll(() => h.close());

function expectMismatch(reply: Reply, id: string | number, pattern?: RegExp): void {
  expect({ status: reply.status, code: reply.json?.error?.code, id: reply.json?.id }).toEqual({ status: 400, code: -32020, id });
  if (pattern) expect(reply.json.error.message).toMatch(pattern);
}

function expectOk(reply: Reply): any {
  expect({ status: reply.status, error: reply.json?.error }).toEqual({ status: 200, error: undefined });
  return resultOf(reply);
}

describe('Mcp-Method', () => {
  test('missing → -32020', async () => {
    expectMismatch(await modern(h.port, { id: 1, method: 'tools/list', headers: { 'Mcp-Method': undefined } }), 1, /Mcp-Method/);
  });

  test('naming another method → -32020', async () => {
    expectMismatch(await modern(h.port, { id: 2, method: 'tools/list', headers: { 'Mcp-Method': 'prompts/list' } }), 2, /Mcp-Method/);
  });

  test('wrong case of the value → -32020 (values are case-sensitive)', async () => {
    expectMismatch(await modern(h.port, { id: 3, method: 'tools/list', headers: { 'Mcp-Method': 'TOOLS/LIST' } }), 3);
  });

  test.each(['mcp-method', 'MCP-METHOD', 'mCp-MeThOd'])('header name %s is accepted', async (name) => {
    expectOk(await modern(h.port, { method: 'tools/list', headers: { [name]: 'tools/list' } }));
  });

  test('surrounding whitespace is trimmed', async () => {
    expectOk(await modern(h.port, { method: 'tools/list', headers: { 'Mcp-Method': '  tools/list \t' } }));
  });

  test('lower-case names for every standard header', async () => {
    const reply = await callTool(h.port, 'region_tool', { region: 'eu' }, {
      headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'region_tool', 'mcp-param-region': 'eu' },
    });
    expect(textOf(expectOk(reply))).toBe('region=eu');
  });
});

describe('Mcp-Name', () => {
  test('missing on tools/call → -32020', async () => {
    expectMismatch(await callTool(h.port, 'echo', {}, { id: 10, headers: { 'Mcp-Name': undefined } }), 10, /Mcp-Name/);
  });

  test('naming another tool → -32020', async () => {
    expectMismatch(await callTool(h.port, 'echo', {}, { id: 11, headers: { 'Mcp-Name': 'wrong_tool_name' } }), 11, /Mcp-Name/);
  });

  test('wrong case of the tool name → -32020', async () => {
    expectMismatch(await callTool(h.port, 'echo', {}, { id: 12, headers: { 'Mcp-Name': 'ECHO' } }), 12);
  });

  test('surrounding whitespace is trimmed', async () => {
    expect(textOf(expectOk(await callTool(h.port, 'echo', {}, { headers: { 'Mcp-Name': '  echo  ' } })))).toBe('empty');
  });

  test('header name in any case', async () => {
    expectOk(await callTool(h.port, 'echo', {}, { headers: { 'MCP-NAME': 'echo' } }));
    expectOk(await callTool(h.port, 'echo', {}, { headers: { 'mcp-name': 'echo' } }));
  });

  test('prompts/get mirrors params.name', async () => {
    expectOk(await modern(h.port, { method: 'prompts/get', params: { name: 'simple_prompt' } }));
    expectMismatch(await modern(h.port, { id: 13, method: 'prompts/get', params: { name: 'simple_prompt' }, headers: { 'Mcp-Name': 'other_prompt' } }), 13);
    expectMismatch(await modern(h.port, { id: 14, method: 'prompts/get', params: { name: 'simple_prompt' }, headers: { 'Mcp-Name': undefined } }), 14);
  });

  test('resources/read mirrors params.uri', async () => {
    expectOk(await modern(h.port, { method: 'resources/read', params: { uri: 'test://static-text' } }));
    expectMismatch(await modern(h.port, { id: 15, method: 'resources/read', params: { uri: 'test://static-text' }, headers: { 'Mcp-Name': 'test://other' } }), 15);
    expectMismatch(await modern(h.port, { id: 16, method: 'resources/read', params: { uri: 'test://static-text' }, headers: { 'Mcp-Name': undefined } }), 16);
  });

  test('a base64-encoded name is decoded before comparing', async () => {
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    expectOk(await callTool(h.port, 'echo', {}, { headers: { 'Mcp-Name': encoded } }));
  });

  test('not required on methods without a name (tools/list)', async () => {
    expectOk(await modern(h.port, { method: 'tools/list' }));
  });
});

describe('Mcp-Param-* for an x-mcp-header argument', () => {
  test('the tool lists its x-mcp-header annotation', async () => {
    const { tools } = expectOk(await modern(h.port, { method: 'tools/list' }));
    const region = tools.find((tool: any) => tool.name === 'region_tool');
    expect(region.inputSchema.properties.region).toMatchObject({ type: 'string', 'x-mcp-header': 'Region' });
  });

  test('a matching header is accepted', async () => {
    const reply = await callTool(h.port, 'region_tool', { region: 'us-west1' }, { headers: { 'Mcp-Param-Region': 'us-west1' } });
    expect(textOf(expectOk(reply))).toBe('region=us-west1');
  });

  test('a mismatching header is rejected', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'us-west1' }, { id: 20, headers: { 'Mcp-Param-Region': 'eu-west1' } }), 20, /Mcp-Param-Region/);
  });

  test('values are case-sensitive', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'EU' }, { id: 21, headers: { 'Mcp-Param-Region': 'eu' } }), 21);
  });

  test('a missing header while the body has the value is rejected', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'test-value' }, { id: 22 }), 22, /Mcp-Param-Region/);
  });

  test('no value in the body and no header is fine', async () => {
    expect(textOf(expectOk(await callTool(h.port, 'region_tool', { note: 'x' })))).toBe('region=undefined');
  });

  test('a null value in the body needs no header', async () => {
    const reply = await callTool(h.port, 'region_tool', { region: null });
    expect(reply.status).toBe(200);
    expect(reply.json?.error).toBeUndefined();
  });

  test('the header name is case-insensitive', async () => {
    expectOk(await callTool(h.port, 'region_tool', { region: 'eu' }, { headers: { 'mcp-param-region': 'eu' } }));
    expectOk(await callTool(h.port, 'region_tool', { region: 'eu' }, { headers: { 'MCP-PARAM-REGION': 'eu' } }));
  });

  test('=?base64?SGVsbG8=?= is decoded and accepted for "Hello"', async () => {
    const reply = await callTool(h.port, 'region_tool', { region: 'Hello' }, { headers: { 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' } });
    expect(textOf(expectOk(reply))).toBe('region=Hello');
  });

  test('=?base64?SGVsbG8?= (padding missing) is rejected', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'Hello' }, { id: 23, headers: { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' } }), 23);
  });

  test('=?base64?SGVs!!!bG8=?= (invalid characters) is rejected', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'Hello' }, { id: 24, headers: { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' } }), 24);
  });

  test('=?base64?SGVsbG8= (no ?= suffix) is a literal value', async () => {
    expectOk(await callTool(h.port, 'region_tool', { region: '=?base64?SGVsbG8=' }, { headers: { 'Mcp-Param-Region': '=?base64?SGVsbG8=' } }));
    // …so it does not stand for "Hello".
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'Hello' }, { id: 25, headers: { 'Mcp-Param-Region': '=?base64?SGVsbG8=' } }), 25);
  });

  test('SGVsbG8= without the sentinel is a literal value', async () => {
    expectOk(await callTool(h.port, 'region_tool', { region: 'SGVsbG8=' }, { headers: { 'Mcp-Param-Region': 'SGVsbG8=' } }));
  });

  test('the sentinel is case-sensitive (=?BASE64?…?= is literal)', async () => {
    expectMismatch(await callTool(h.port, 'region_tool', { region: 'Hello' }, { id: 26, headers: { 'Mcp-Param-Region': '=?BASE64?SGVsbG8=?=' } }), 26);
  });

  test('a non-ASCII value travels base64-encoded', async () => {
    const value = 'Zürich ✓';
    const reply = await callTool(h.port, 'region_tool', { region: value }, { headers: { 'Mcp-Param-Region': `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=` } });
    expect(textOf(expectOk(reply))).toBe(`region=${value}`);
  });

  test('a value with leading/trailing spaces travels base64-encoded and keeps them', async () => {
    const value = '  padded  ';
    const reply = await callTool(h.port, 'region_tool', { region: value }, { headers: { 'Mcp-Param-Region': `=?base64?${Buffer.from(value).toString('base64')}?=` } });
    expect(textOf(expectOk(reply))).toBe(`region=${value}`);
  });

  test('raw non-ASCII bytes in the header are rejected', async () => {
    const body = JSON.stringify(modernBody({ id: 27, method: 'tools/call', params: { name: 'region_tool', arguments: { region: 'Zürich' } } }));
    const head = [
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${h.port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `MCP-Protocol-Version: ${MODERN}`,
      'Mcp-Method: tools/call',
      'Mcp-Name: region_tool',
      'Connection: close',
      `Content-Length: ${Buffer.byteLength(body)}`,
    ].join('\r\n');
    const raw = Buffer.concat([Buffer.from(head + '\r\nMcp-Param-Region: '), Buffer.from('Zürich', 'utf8'), Buffer.from('\r\n\r\n' + body)]);
    const response = parseRawResponse(await rawHttp(h.port, raw));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ id: 27, error: { code: -32020 } });
  });

  describe('a numeric argument compares numerically', () => {
    test.each(['42', '42.0', ' 42 '])('header %p matches 42', async (header) => {
      expect(textOf(expectOk(await callTool(h.port, 'count_tool', { count: 42 }, { headers: { 'Mcp-Param-Count': header } })))).toBe('count=42');
    });

    test.each(['43', 'forty-two', '0x2A2'])('header %p does not match 42', async (header) => {
      expectMismatch(await callTool(h.port, 'count_tool', { count: 42 }, { id: 30, headers: { 'Mcp-Param-Count': header } }), 30);
    });

    test('missing header for a numeric value is rejected', async () => {
      expectMismatch(await callTool(h.port, 'count_tool', { count: 0 }, { id: 31 }), 31);
    });
  });

  test('a tool without x-mcp-header ignores Mcp-Param-* headers', async () => {
    expectOk(await callTool(h.port, 'echo', { text: 'hi' }, { headers: { 'Mcp-Param-Region': 'anything' } }));
  });

  test('the body stays authoritative: headers route, the handler sees the body value', async () => {
    const reply = await callTool(h.port, 'region_tool', { region: 'from-body' }, { headers: { 'Mcp-Param-Region': 'from-body' }, meta: envelope() });
    expect(textOf(expectOk(reply))).toBe('region=from-body');
  });
});
