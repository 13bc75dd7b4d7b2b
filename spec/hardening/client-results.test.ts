/**
 * A session client's answers to the server's requests (elicitation/create, roots/list, sampling/createMessage)
 * are checked with the same shape rules as 2026-07-28 inputResponses before the handler sees them: a malformed
 * result fails the handler's call with -32602 (the tool registry lets McpErrors through, so the tools/call ends
 * with that JSON-RPC error) instead of handing the handler garbage. Well-formed answers still reach it.
 */
import { LocalSessionManager, McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';
import { isResponseTo, openPost, openSession, postMessage, startHarness, toolCall, type Harness, type LiveResponse } from '../helpers/http-helpers.js';
import { ErrorLog } from './fixtures.js';

/** What the handlers got back from the client, by tool. */
const received: Array<{ tool: string; answer: unknown }> = [];

function buildServer(): McpServer {
  const server = new McpServer({ name: 'client-results-spec', version: '1.0.0' });
  server.tool('ask_name', { description: 'Elicits a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    received.push({ tool: 'ask_name', answer });
    return { content: [{ type: 'text', text: `${answer.action}:${String(answer.content?.name)}` }] };
  });
  server.tool('count_roots', { description: 'Lists the client roots' }, async (_args, ctx) => {
    const answer = await ctx.listRoots();
    received.push({ tool: 'count_roots', answer });
    return { content: [{ type: 'text', text: `${answer.roots.length} roots` }] };
  });
  server.tool('ask_model', { description: 'Samples the client model' }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
    received.push({ tool: 'ask_model', answer });
    return { content: [{ type: 'text', text: `model ${answer.model}` }] };
  });
  return server;
}

const METHOD_OF: Record<string, string> = { ask_name: 'elicitation/create', count_roots: 'roots/list', ask_model: 'sampling/createMessage' };

const MALFORMED: Array<[string, string, unknown]> = [
  ['ask_name', 'an unknown action', { action: 'maybe' }],
  ['ask_name', 'no action', {}],
  ['ask_name', 'content that is not an object', { action: 'accept', content: 'Alice' }],
  ['ask_name', 'content that is an array', { action: 'accept', content: ['Alice'] }],
  ['count_roots', 'roots that are not an array', { roots: 'x' }],
  ['count_roots', 'a root without a uri', { roots: [{ name: 'home' }] }],
  ['count_roots', 'no roots', {}],
  ['ask_model', 'no model', { role: 'assistant', content: { type: 'text', text: 'hi' } }],
  ['ask_model', 'no content', { role: 'assistant', model: 'm' }],
];

const WELL_FORMED: Array<[string, unknown, string]> = [
  ['ask_name', { action: 'accept', content: { name: 'Alice' } }, 'accept:Alice'],
  ['ask_name', { action: 'decline' }, 'decline:undefined'],
  ['count_roots', { roots: [{ uri: 'file:///home', name: 'home' }] }, '1 roots'],
  ['ask_model', { role: 'assistant', model: 'm', content: { type: 'text', text: 'hello' }, stopReason: 'endTurn' }, 'model m'],
];

describe.each(['2025-06-18', '2025-11-25'])('%s session', (version) => {
  let h: Harness;
  let log: ErrorLog;
  let sessionId: string;
  const open: LiveResponse[] = [];
  beforeAll(async () => {
    log = new ErrorLog();
    h = await startHarness({ server: buildServer(), sessionManager: new LocalSessionManager({ onError: log.onError }) });
    sessionId = await openSession(h, version, { elicitation: {}, roots: {}, sampling: {} });
  });
  afterEach(() => {
    for (const live of open.splice(0)) live.close();
    received.length = 0;
  });
  afterAll(() => h.close());

  /** Calls `tool`, answers its request to the client with `result`, and returns the tools/call response. */
  async function callAndAnswer(id: number, tool: string, result: unknown): Promise<JsonRpcMessage> {
    const live = await openPost(h, version, sessionId, toolCall(id, tool));
    open.push(live);
    const request = (await live.waitForMessage((message) => 'method' in message && message.method === METHOD_OF[tool])) as { id: string | number };
    const ack = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: request.id, result });
    expect(ack.status).toBe(202);
    return live.waitForMessage(isResponseTo(id));
  }

  test.each(MALFORMED)('%s answered with %s: the tools/call ends with -32602', async (tool, _label, result) => {
    const response = await callAndAnswer(1, tool, result);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringContaining(METHOD_OF[tool]) } });
    expect(received).toEqual([]);
    expect(log.errors).toEqual([]);
  });

  test.each(WELL_FORMED)('%s answered with %j reaches the handler', async (tool, result, text) => {
    const response = await callAndAnswer(2, tool, result);
    expect(response).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text }] } });
    expect(received).toEqual([{ tool, answer: result }]);
  });
});
