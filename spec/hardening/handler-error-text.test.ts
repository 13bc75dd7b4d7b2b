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

/** A server in one era: how to send it a request, and the onError log its handler failures go to. */
interface Served {
  h: Harness;
  log: ErrorLog;
  /** Every onError log of the setup (none may hear of an McpError). */
  logs: ErrorLog[];
  send(method: string): Promise<{ text: string; response: any }>;
}

const ERAS: Array<{ label: string; start(): Promise<Served> }> = [
  {
    label: '2025-11-25 session (LocalSessionManager onError)',
    async start() {
      const [middlewareLog, managerLog] = [new ErrorLog(), new ErrorLog()];
      const h = await startHarness({ server: buildServer(), onError: middlewareLog.onError, sessionManager: new LocalSessionManager({ onError: managerLog.onError }) });
      const sessionId = await openSession(h, '2025-11-25');
      return {
        h,
        log: managerLog,
        logs: [middlewareLog, managerLog],
        async send(method) {
          const res = await postMessage(h, '2025-11-25', sessionId, { jsonrpc: '2.0', id: 1, method });
          return { text: res.text, response: sseMessages(res.text).find(isResponseTo(1)) };
        },
      };
    },
  },
  {
    label: '2026-07-28 request (mcpMiddleware onError)',
    async start() {
      const log = new ErrorLog();
      const h = await startHarness({ server: buildServer(), onError: log.onError });
      return {
        h,
        log,
        logs: [log],
        async send(method) {
          const reply = await modern(h.port, { id: 1, method });
          return { text: reply.text, response: reply.final };
        },
      };
    },
  },
  {
    label: '2025-11-25 request without sessions (legacySessions: false, mcpMiddleware onError)',
    async start() {
      const log = new ErrorLog();
      const h = await startHarness({ server: buildServer(), onError: log.onError, legacySessions: false, enableJsonResponse: true });
      return {
        h,
        log,
        logs: [log],
        async send(method) {
          const reply = await rawRequest(h.port, 'POST', clientHeaders('2025-11-25'), JSON.stringify({ jsonrpc: '2.0', id: 1, method }));
          return { text: reply.text, response: reply.final };
        },
      };
    },
  },
];

describe.each(ERAS)('$label', (era) => {
  let served: Served;
  beforeEach(async () => {
    served = await era.start();
  });
  afterEach(() => served.h.close());

  test.each(['custom/explode', 'custom/explode-later'])('%s throwing an Error: generic -32603 naming the method; the Error goes to onError', async (method) => {
    const { text, response } = await served.send(method);
    expect(text).not.toContain(SECRET);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: expect.stringContaining(method) } });
    expect(served.log.errors).toHaveLength(1);
    expect(served.log.errors[0]).toBeInstanceOf(Error);
    expect((served.log.errors[0] as Error).message).toBe(SECRET);
  });

  test('an McpError keeps its code, message and data and is not reported to onError', async () => {
    const { response } = await served.send('custom/refuse');
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32050, message: 'Quota exceeded for this key', data: { retryAfterSeconds: 30 } } });
    for (const log of served.logs) expect(log.errors).toEqual([]);
  });
});
