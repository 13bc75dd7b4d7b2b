/**
 * The metrics (prom-client) and logging (pino) code of docs/observability.md, which is examples/observability/:
 * run against a real middleware, and the doc's blocks are those files, character for character.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import request from 'supertest';
import { z } from 'zod';
import { mcpLogging } from '../../examples/observability/logging.js';
import { mcpMetrics } from '../../examples/observability/metrics.js';
import { McpServer } from '../../lib/index.js';
import { clientHeaders, initializeRequest, toolCall } from '../helpers/http-helpers.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

const track = closeAfterEach();
const VERSION = '2025-06-18';

function buildServer() {
  const server = new McpServer({ name: 'observed', version: '1.0.0' });
  server.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('liar', { outputSchema: { n: z.number() } }, () => ({ content: [], structuredContent: { n: 'x' } as unknown as { n: number } }));
  return server;
}

/** initialize, a good call, a call that breaks its outputSchema, an unknown method, DELETE, and a refused Host. */
async function traffic(url: string): Promise<string> {
  const init = await request(url).post('').set(clientHeaders(VERSION)).send(initializeRequest(VERSION));
  const sessionId = init.headers['mcp-session-id'] as string;
  await request(url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(1, 'add', { a: 1, b: 2 }));
  await request(url).post('').set(clientHeaders(VERSION, sessionId)).send(toolCall(2, 'liar'));
  await request(url).post('').set(clientHeaders(VERSION, sessionId)).send({ jsonrpc: '2.0', id: 3, method: 'made/up' });
  expect((await request(url).delete('').set(clientHeaders(VERSION, sessionId))).status).toBe(200);
  expect((await request(url).post('').set({ ...clientHeaders(VERSION), Host: 'evil.example' }).send(initializeRequest(VERSION))).status).toBe(403);
  return sessionId;
}

test('prom-client: request durations by method, tool and outcome; open sessions; session events; refusals', async () => {
  const registry = new Registry();
  const served = track(await serve({ server: buildServer(), onEvent: mcpMetrics(registry), onError: () => undefined }));
  await traffic(served.url);
  const text = await registry.metrics();
  expect(text).toContain('mcp_request_duration_seconds_count{method="initialize",tool="",era="session",outcome="ok",code=""} 1');
  expect(text).toContain('mcp_request_duration_seconds_count{method="tools/call",tool="add",era="session",outcome="ok",code=""} 1');
  expect(text).toContain('mcp_request_duration_seconds_count{method="tools/call",tool="liar",era="session",outcome="error",code="-32603"} 1');
  expect(text).toContain('mcp_request_duration_seconds_count{method="unknown",tool="",era="session",outcome="error",code="-32601"} 1');
  expect(text).toContain('mcp_sessions_open 0');
  expect(text).toContain('mcp_session_events_total{event="created",reason=""} 1');
  expect(text).toContain('mcp_session_events_total{event="closed",reason="deleted"} 1');
  expect(text).toContain('mcp_requests_refused_total{status="403"} 1');
});

test('pino: one line per request end, errors with their stack, session events, refusals', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ base: undefined, timestamp: false }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const served = track(await serve({ server: buildServer(), ...mcpLogging(logger) }));
  const sessionId = await traffic(served.url);
  const INFO = 30;
  const WARN = 40;
  const ERROR = 50;
  expect(lines).toContainEqual({ level: INFO, msg: 'session.created', event: 'session.created', sessionId });
  expect(lines).toContainEqual(
    expect.objectContaining({ level: INFO, msg: 'tools/call ok', event: 'request.end', method: 'tools/call', toolName: 'add', era: 'session', sessionId, outcome: 'ok', durationMs: expect.any(Number) }),
  );
  expect(lines).toContainEqual(expect.objectContaining({ level: WARN, msg: 'tools/call error', toolName: 'liar', errorCode: -32603 }));
  expect(lines).toContainEqual(
    expect.objectContaining({ level: ERROR, msg: 'mcp-express error', err: expect.objectContaining({ type: 'ToolOutputError', message: expect.stringContaining('Tool liar'), stack: expect.any(String) }) }),
  );
  expect(lines).toContainEqual({ level: INFO, msg: 'session.closed', event: 'session.closed', sessionId, reason: 'deleted' });
  expect(lines).toContainEqual(expect.objectContaining({ level: WARN, event: 'request.refused', status: 403, msg: expect.stringContaining('evil.example') }));
  expect(lines.filter((line) => line.event === 'request.start')).toEqual([]);
});

test('docs/observability.md shows these files as they are', () => {
  const root = path.join(__dirname, '..', '..');
  const doc = fs.readFileSync(path.join(root, 'docs/observability.md'), 'utf8');
  for (const file of ['metrics.ts', 'logging.ts']) {
    const source = fs.readFileSync(path.join(root, 'examples/observability', file), 'utf8');
    const block = new RegExp(`<!-- examples/observability/${file.replace('.', '\\.')} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(doc);
    expect(block?.[1]).toBe(source);
  }
});
