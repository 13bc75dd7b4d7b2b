/**
 * Client values that cannot be turned into text (`{"toString":1}`: `String()` and template literals throw) in
 * the places the server quotes them in an error message. Each gets the spec's 4xx and JSON-RPC error with the
 * request id echoed, never a 500.
 */
import { ACCEPT_BOTH, initializeRequest } from '../helpers/http-helpers.js';
import { envelope, META_PROTOCOL_VERSION, modern, rawRequest, startModern, type ModernHarness, type Reply } from '../helpers/modern.js';
import { UNRENDERABLE } from './fixtures.js';

let h: ModernHarness;
afterEach(async () => {
  await h?.close();
});

/** The JSON error body of a reply, failing loudly with the whole reply when it is something else. */
function jsonError(reply: Reply, id: string | number): { code: number; message: string } {
  expect({ status: reply.status, contentType: reply.contentType }).toEqual({ status: 400, contentType: expect.stringMatching(/^application\/json/) });
  expect(reply.json).toEqual({ jsonrpc: '2.0', id, error: expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }) });
  return reply.json.error;
}

describe('2026-07-28 requests', () => {
  beforeEach(async () => {
    h = await startModern();
  });

  test('tools/call with params.name {"toString":1} and an Mcp-Name header: 400 / -32020 with the id', async () => {
    const reply = await modern(h.port, { id: 'name-1', method: 'tools/call', params: { name: UNRENDERABLE, arguments: {} }, headers: { 'Mcp-Name': 'echo' } });
    const error = jsonError(reply, 'name-1');
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Name');
    expect(error.message).toContain('{"toString":1}');
  });

  test('resources/read with params.uri {"toString":1} and an Mcp-Name header: 400 / -32020 with the id', async () => {
    const reply = await modern(h.port, { id: 'uri-1', method: 'resources/read', params: { uri: UNRENDERABLE }, headers: { 'Mcp-Name': 'test://static-text' } });
    const error = jsonError(reply, 'uri-1');
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('params.uri');
  });

  test('_meta protocolVersion {"toString":1} beside MCP-Protocol-Version: 2026-07-28: 400 / -32020 with the id', async () => {
    const reply = await modern(h.port, {
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      meta: envelope({ [META_PROTOCOL_VERSION]: UNRENDERABLE }),
      headers: { 'MCP-Protocol-Version': '2026-07-28' },
    });
    const error = jsonError(reply, 7);
    expect(error.code).toBe(-32020);
    expect(error.message).toContain(META_PROTOCOL_VERSION);
  });

  test('completion/complete with argument.value {"toString":1}: -32602 with the id', async () => {
    const reply = await modern(h.port, {
      id: 'complete-1',
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name: 'simple_prompt' }, argument: { name: 'a', value: UNRENDERABLE } },
    });
    expect(jsonError(reply, 'complete-1').code).toBe(-32602);
  });

  test('control: the same completion with a string value completes', async () => {
    const reply = await modern(h.port, {
      id: 'complete-2',
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name: 'simple_prompt' }, argument: { name: 'a', value: 'al' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.final).toMatchObject({ id: 'complete-2', result: { completion: { values: ['alpha'] } } });
  });
});

describe('session-era initialize with params.protocolVersion {"toString":1}', () => {
  const send = (id: string) => {
    const request = initializeRequest('2025-11-25', id);
    const body = { ...request, params: { ...request.params, protocolVersion: UNRENDERABLE } };
    return rawRequest(h.port, 'POST', { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'MCP-Protocol-Version': '2025-11-25' }, JSON.stringify(body));
  };

  test('with sessions: 400 with the id', async () => {
    h = await startModern();
    const reply = await send('init-1');
    const error = jsonError(reply, 'init-1');
    expect(error.message).toContain('MCP-Protocol-Version');
    expect(reply.headers['mcp-session-id']).toBeUndefined();
  });

  test('with legacySessions: false: a JSON-RPC answer with the id, never a 5xx', async () => {
    h = await startModern({ legacySessions: false });
    const reply = await send('init-2');
    expect(reply.status).toBeLessThan(500);
    expect(reply.final).toEqual(expect.objectContaining({ jsonrpc: '2.0', id: 'init-2' }));
  });
});
