/**
 * A tool's outcomes are the same whether its handler answers at once or with a promise (the registry chains onto
 * either with one `then`): its result, an error it throws (an isError result), an McpError it
 * throws (a JSON-RPC error), a result that breaks its outputSchema or lacks its structuredContent (-32603, reported
 * to onError), and invalid arguments (an isError result, the handler not run). In a session and in a 2026-07-28
 * request.
 */
import request from 'supertest';
import { z } from 'zod';
import { McpError, McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';
import { clientHeaders, initializeRequest, sseMessages, toolCall } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders } from '../helpers/modern.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

const track = closeAfterEach();
const VERSION = '2025-11-25';

type Outcome = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown> };

/** What each tool does, given once and served both ways: `<name>_sync` answers at once, `<name>_async` with a promise. */
const BEHAVIOURS: Record<string, (args: { n: number }) => Outcome> = {
  ok: ({ n }) => ({ content: [{ type: 'text', text: String(n * 2) }], structuredContent: { doubled: n * 2 } }),
  throws: () => {
    throw new Error('the disk is full');
  },
  protocol: () => {
    throw new McpError(-32042, 'a protocol error of the tool');
  },
  liar: () => ({ content: [], structuredContent: { doubled: 'not a number' } }),
  silent: () => ({ content: [{ type: 'text', text: 'no structured content' }] }),
};

async function start() {
  const server = new McpServer({ name: 'outcomes', version: '1.0.0' });
  const ran: string[] = [];
  for (const [name, behaviour] of Object.entries(BEHAVIOURS)) {
    const config = { inputSchema: { n: z.number() }, outputSchema: { doubled: z.number() } };
    server.tool(`${name}_sync`, config, (args) => {
      ran.push(`${name}_sync`);
      return behaviour(args) as never;
    });
    server.tool(`${name}_async`, config, async (args) => {
      ran.push(`${name}_async`);
      await new Promise((resolve) => setImmediate(resolve));
      return behaviour(args) as never;
    });
  }
  const errors: unknown[] = [];
  const served = track(await serve({ server, onError: (error) => errors.push(error) }));
  return { served, ran, errors };
}

/** The final message of a tools/call in a session. */
async function callInSession(url: string, sessionId: string, id: number, name: string, args: Record<string, unknown>): Promise<JsonRpcMessage> {
  const res = await request(url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(id, name, args));
  expect(res.status).toBe(200);
  return sseMessages(res.text).at(-1)!;
}

/** The message (JSON body) of a 2026-07-28 tools/call. */
async function callModern(url: string, id: number, name: string, args: Record<string, unknown>): Promise<JsonRpcMessage> {
  const params = { name, arguments: args };
  const res = await request(url).post('').set(modernHeaders('tools/call', params)).send(modernBody({ id, method: 'tools/call', params }));
  expect(res.headers['content-type']).toMatch(/application\/json/);
  return res.body as JsonRpcMessage;
}

describe.each([
  ['in a session', 'session'],
  ['in a 2026-07-28 request', 'modern'],
] as const)('tool outcomes %s', (_title, era) => {
  let call: (id: number, name: string, args: Record<string, unknown>) => Promise<JsonRpcMessage>;
  let ran: string[];
  let errors: unknown[];

  beforeEach(async () => {
    const started = await start();
    ran = started.ran;
    errors = started.errors;
    if (era === 'modern') {
      call = (id, name, args) => callModern(started.served.url, id, name, args);
      return;
    }
    const init = await request(started.served.url).post('').set(clientHeaders(VERSION)).send(initializeRequest(VERSION));
    const sessionId = init.headers['mcp-session-id'] as string;
    call = (id, name, args) => callInSession(started.served.url, sessionId, id, name, args);
  });

  test.each(['sync', 'async'])('%s handler: its result, with structuredContent checked', async (mode) => {
    const message = await call(1, `ok_${mode}`, { n: 21 });
    expect(message).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: '42' }], structuredContent: { doubled: 42 } } });
    expect(message).not.toHaveProperty('result.isError');
    expect(errors).toEqual([]);
  });

  test.each(['sync', 'async'])('%s handler that throws: an isError result with its message', async (mode) => {
    const message = await call(2, `throws_${mode}`, { n: 1 });
    expect(message).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'the disk is full' }], isError: true } });
    expect(errors).toEqual([]);
  });

  test.each(['sync', 'async'])('%s handler that throws an McpError: that JSON-RPC error', async (mode) => {
    const message = await call(3, `protocol_${mode}`, { n: 1 });
    expect(message).toMatchObject({ id: 3, error: { code: -32042, message: 'a protocol error of the tool' } });
    expect(message).not.toHaveProperty('result');
  });

  test.each(['sync', 'async'])('%s handler breaking its outputSchema: -32603, reported to onError', async (mode) => {
    const message = await call(4, `liar_${mode}`, { n: 1 });
    expect(message).toMatchObject({ id: 4, error: { code: -32603, message: expect.stringContaining('does not match its outputSchema') } });
    expect(errors).toEqual([expect.objectContaining({ name: 'ToolOutputError', message: expect.stringContaining(`Tool liar_${mode} returned structuredContent`) })]);
  });

  test.each(['sync', 'async'])('%s handler without the structuredContent its outputSchema declares: -32603', async (mode) => {
    const message = await call(5, `silent_${mode}`, { n: 1 });
    expect(message).toMatchObject({ id: 5, error: { code: -32603, message: expect.stringContaining('returned no structuredContent') } });
    expect(errors).toEqual([expect.objectContaining({ name: 'ToolOutputError' })]);
  });

  test.each(['sync', 'async'])('%s handler given invalid arguments: an isError result, the handler not run', async (mode) => {
    const message = await call(6, `ok_${mode}`, { n: 'twenty-one' });
    expect(message).toMatchObject({ id: 6, result: { isError: true, content: [{ type: 'text', text: expect.stringContaining(`Invalid arguments for tool ok_${mode}`) }] } });
    expect(ran).toEqual([]);
  });

  test('an unknown tool: -32602', async () => {
    const message = await call(7, 'missing', {});
    expect(message).toMatchObject({ id: 7, error: { code: -32602, message: 'Unknown tool: missing' } });
  });
});
