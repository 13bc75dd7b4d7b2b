/**
 * `completion/complete` looks completers up by the client's argument name among the completers a prompt or
 * template declares, own properties only: `constructor`, `toString`, `__proto__`… name no completer, so the
 * answer is an empty completion (not a string from `Object`, nor a -32603 from calling `Object.prototype`).
 */
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import { isResponseTo, openSession, postMessage, sseMessages, startHarness, type Harness } from '../helpers/http-helpers.js';
import { modern, resultOf } from '../helpers/modern.js';

const INHERITED_NAMES = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty'];
const EMPTY_COMPLETION = { values: [], total: 0, hasMore: false };

function buildServer(): McpServer {
  const server = new McpServer({ name: 'completion-spec', version: '1.0.0' });
  server.prompt(
    'city_prompt',
    { description: 'Completes its city argument', argsSchema: { city: z.string(), note: z.string().optional() }, complete: { city: (value) => ['Paris', 'Prague'].filter((city) => city.startsWith(value)) } },
    ({ city }) => ({ messages: [{ role: 'user', content: { type: 'text', text: city } }] }),
  );
  server.resourceTemplate(
    'city_file',
    'test://cities/{city}',
    { mimeType: 'text/plain', complete: { city: (value) => ['Paris', 'Prague'].filter((city) => city.startsWith(value)) } },
    (uri) => ({ contents: [{ uri: uri.href, text: 'city' }] }),
  );
  return server;
}

const REFS = [
  ['ref/prompt', { type: 'ref/prompt', name: 'city_prompt' }],
  ['ref/resource', { type: 'ref/resource', uri: 'test://cities/{city}' }],
] as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ server: buildServer() });
});
afterAll(() => h.close());

describe.each(REFS)('%s', (_label, ref) => {
  describe('2026-07-28', () => {
    test.each(INHERITED_NAMES)('argument "%s": an empty completion', async (name) => {
      const reply = await modern(h.port, { id: `c-${name}`, method: 'completion/complete', params: { ref, argument: { name, value: 'P' } } });
      expect(reply.status).toBe(200);
      expect(reply.final.id).toBe(`c-${name}`);
      expect(resultOf(reply).completion).toEqual(EMPTY_COMPLETION);
    });

    test('control: the declared argument completes', async () => {
      const reply = await modern(h.port, { method: 'completion/complete', params: { ref, argument: { name: 'city', value: 'Pa' } } });
      expect(resultOf(reply).completion).toEqual({ values: ['Paris'], total: 1, hasMore: false });
    });
  });

  describe('2025-11-25 session', () => {
    let sessionId: string;
    beforeAll(async () => {
      sessionId = await openSession(h, '2025-11-25');
    });

    test.each(INHERITED_NAMES)('argument "%s": an empty completion', async (name) => {
      const res = await postMessage(h, '2025-11-25', sessionId, { jsonrpc: '2.0', id: 1, method: 'completion/complete', params: { ref, argument: { name, value: 'P' } } });
      expect(res.status).toBe(200);
      expect(sseMessages(res.text).find(isResponseTo(1))).toEqual({ jsonrpc: '2.0', id: 1, result: { completion: EMPTY_COMPLETION } });
    });
  });
});
