/**
 * One policy for what a client learns of a handler's exception, in every era: a plain Error is a server fault,
 * so the client gets -32603 with a generic message naming the method and the Error goes to `onError` (its text
 * may carry internals); an `McpError` is meant for the client and keeps its code, message and data.
 */
import { LocalSessionManager, McpError, McpServer } from '../../lib/index.js';
import { clientHeaders, isResponseTo, openSession, postMessage, sseMessages, startHarness, type Harness } from '../helpers/http-helpers.js';
import { modern, rawRequest } from '../helpers/modern.js';
import { ErrorLog } from './fixtures.js';

const SECRET = 'secret database password';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'error-text-spec', version: '1.0.0' });
  server.setRequestHandler('custom/explode', () => {
    throw new Error(SECRET);
  });
  server.setRequestHandler('custom/explode-later', async () => {
    await Promise.resolve();
    throw new Error(SECRET);
  });
  server.setRequestHandler('custom/refuse', () => {
    throw new McpError(-32050, 'Quota exceeded for this key', { retryAfterSeconds: 30 });
  });
  return server;
}

/** How one era sends a request and reads back its body and its JSON-RPC response. */
interface Era {
  label: string;
  start(middlewareLog: ErrorLog, managerLog: ErrorLog): Promise<Harness>;
  /** Which of the two logs the era's failures go to. */
  logOf(middlewareLog: ErrorLog, managerLog: ErrorLog): ErrorLog;
  send(h: Harness, method: string): Promise<{ text: string; response: any }>;
}

const sessions = new Map<Harness, string>();

const ERAS: Era[] = [
  {
    label: '2025-11-25 session (LocalSessionManager onError)',
    start: (middlewareLog, managerLog) =>
      startHarness({ server: buildServer(), onError: middlewareLog.onError, sessionManager: new LocalSessionManager({ onError: managerLog.onError }) }),
    logOf: (_middlewareLog, managerLog) => managerLog,
    async send(h, method) {
      let sessionId = sessions.get(h);
      if (sessionId === undefined) sessions.set(h, (sessionId = await openSession(h, '2025-11-25')));
      const res = await postMessage(h, '2025-11-25', sessionId, { jsonrpc: '2.0', id: 1, method });
      return { text: res.text, response: sseMessages(res.text).find(isResponseTo(1)) };
    },
  },
  {
    label: '2026-07-28 request (mcpMiddleware onError)',
    start: (middlewareLog) => startHarness({ server: buildServer(), onError: middlewareLog.onError }),
    logOf: (middlewareLog) => middlewareLog,
    async send(h, method) {
      const reply = await modern(h.port, { id: 1, method });
      return { text: reply.text, response: reply.final };
    },
  },
  {
    label: '2025-11-25 request without sessions (legacySessions: false, mcpMiddleware onError)',
    start: (middlewareLog) => startHarness({ server: buildServer(), onError: middlewareLog.onError, legacySessions: false, enableJsonResponse: true }),
    logOf: (middlewareLog) => middlewareLog,
    async send(h, method) {
      const reply = await rawRequest(h.port, 'POST', clientHeaders('2025-11-25'), JSON.stringify({ jsonrpc: '2.0', id: 1, method }));
      return { text: reply.text, response: reply.final };
    },
  },
];

describe.each(ERAS)('$label', (era) => {
  let h: Harness;
  let middlewareLog: ErrorLog;
  let managerLog: ErrorLog;
  beforeEach(async () => {
    middlewareLog = new ErrorLog();
    managerLog = new ErrorLog();
    h = await era.start(middlewareLog, managerLog);
  });
  afterEach(async () => {
    sessions.delete(h);
    await h.close();
  });

  test.each(['custom/explode', 'custom/explode-later'])('%s throwing an Error: generic -32603 naming the method; the Error goes to onError', async (method) => {
    const { text, response } = await era.send(h, method);
    expect(text).not.toContain(SECRET);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: expect.stringContaining(method) } });
    const log = era.logOf(middlewareLog, managerLog);
    expect(log.errors).toHaveLength(1);
    expect(log.errors[0]).toBeInstanceOf(Error);
    expect((log.errors[0] as Error).message).toBe(SECRET);
  });

  test('an McpError keeps its code, message and data and is not reported to onError', async () => {
    const { response } = await era.send(h, 'custom/refuse');
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32050, message: 'Quota exceeded for this key', data: { retryAfterSeconds: 30 } } });
    expect(middlewareLog.errors).toEqual([]);
    expect(managerLog.errors).toEqual([]);
  });
});
