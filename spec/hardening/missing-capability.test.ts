/**
 * A handler that needs a client capability the client did not declare (elicitation, sampling, roots) ends the
 * request with the documented client error in every era: -32021 with `data.requiredCapabilities`, never a
 * plain failure (an isError tool result or -32603), and `onError` is not told (it is not a server fault).
 */
import { LocalSessionManager, McpServer } from '../../lib/index.js';
import { isResponseTo, openSession, postMessage, sseMessages, startHarness, toolCall, type Harness } from '../helpers/http-helpers.js';
import { callTool, envelope } from '../helpers/modern.js';
import { ErrorLog } from './fixtures.js';

const CONFIRM = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } };

function buildServer(): McpServer {
  const server = new McpServer({ name: 'missing-capability-spec', version: '1.0.0' });
  server.tool('needs_elicitation', { description: 'Elicits' }, async (_args, ctx) => {
    const answer = await ctx.elicit(CONFIRM);
    return { content: [{ type: 'text', text: answer.action }] };
  });
  server.tool('needs_sampling', { description: 'Samples' }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: answer.model }] };
  });
  server.tool('needs_roots', { description: 'Lists roots' }, async (_args, ctx) => {
    const answer = await ctx.listRoots();
    return { content: [{ type: 'text', text: String(answer.roots.length) }] };
  });
  // The explicit multi-round-trip idiom, which sessions emulate with a real elicitation/create request.
  server.tool('needs_input', { description: 'Ends its first round with ctx.inputRequired' }, async (_args, ctx) => {
    if (ctx.requestState === undefined) ctx.inputRequired({ confirm: { method: 'elicitation/create', params: CONFIRM } }, { round: 1 });
    return { content: [{ type: 'text', text: 'confirmed' }] };
  });
  return server;
}

const CASES: Array<[string, string]> = [
  ['needs_elicitation', 'elicitation'],
  ['needs_sampling', 'sampling'],
  ['needs_roots', 'roots'],
  ['needs_input', 'elicitation'],
];

let h: Harness;
let middlewareLog: ErrorLog;
let managerLog: ErrorLog;
beforeAll(async () => {
  middlewareLog = new ErrorLog();
  managerLog = new ErrorLog();
  h = await startHarness({ server: buildServer(), onError: middlewareLog.onError, sessionManager: new LocalSessionManager({ onError: managerLog.onError }) });
});
afterAll(() => h.close());
beforeEach(() => {
  middlewareLog.errors.length = 0;
  managerLog.errors.length = 0;
});

/** A missing capability is the client's mistake: nothing reaches either onError. */
function expectNoServerFault(): void {
  expect(middlewareLog.errors).toEqual([]);
  expect(managerLog.errors).toEqual([]);
}

describe.each(['2025-06-18', '2025-11-25'])('%s session without the capability', (version) => {
  let sessionId: string;
  beforeAll(async () => {
    sessionId = await openSession(h, version, {});
  });

  test.each(CASES)('%s: JSON-RPC error -32021 with data.requiredCapabilities.%s', async (tool, capability) => {
    const res = await postMessage(h, version, sessionId, toolCall(1, tool));
    expect(res.status).toBe(200);
    expect(sseMessages(res.text).find(isResponseTo(1))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32021, message: expect.stringContaining(`"${capability}"`), data: { requiredCapabilities: { [capability]: {} } } },
    });
    expectNoServerFault();
  });
});

describe('2026-07-28 request without the capability', () => {
  test.each(CASES)('%s: 400 / -32021 with data.requiredCapabilities.%s', async (tool, capability) => {
    const reply = await callTool(h.port, tool, {}, { id: 1, meta: envelope({}, {}) });
    expect({ status: reply.status, body: reply.json }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32021, message: expect.stringContaining(`"${capability}"`), data: { requiredCapabilities: { [capability]: {} } } },
      },
    });
    expectNoServerFault();
  });
});
