/**
 * A stateless run tells its end through `whenDone`, a callback: after the final response was emitted (or the run
 * was cancelled), at once for a run that has ended already, once, and a listener that throws reaches `onError`
 * without stopping the dispatcher. A 2026-07-28 tool call through the dispatcher makes three promises: the tool
 * handler's, the registry's `then` on it and the dispatcher's own `then` on that.
 */
import { promiseHooks } from 'node:v8';
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../lib/protocol/jsonrpc.js';
import { RequestStateCodec } from '../../lib/server/request-state.js';
import { StatelessClient } from '../../lib/session/stateless-client.js';
import { StatelessDispatcher, type StatelessRun } from '../../lib/session/stateless-dispatcher.js';
import type { RequestInfo } from '../../lib/session/session-manager.js';

const client = new StatelessClient('2026-07-28', {}, { name: 'spec', version: '1.0.0' }, undefined, true);
const info: RequestInfo = { authInfo: undefined, httpRequest: undefined, principal: undefined } as unknown as RequestInfo;

function setUp(): { dispatcher: StatelessDispatcher; errors: unknown[]; release: () => void } {
  const server = new McpServer({ name: 'runs', version: '1.0.0' });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.tool('sum', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('gated', { inputSchema: {} }, async (_args, ctx) => {
    await Promise.race([gate, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))]);
    return { content: [{ type: 'text', text: 'opened' }] };
  });
  const errors: unknown[] = [];
  const dispatcher = new StatelessDispatcher(server, new RequestStateCodec(undefined, 60_000), { ttlMs: 0, cacheScope: 'public' }, (error) => errors.push(error));
  return { dispatcher, errors, release };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** Resolves once `run` is done, with the order in which its messages and its end came. */
function journal(run: StatelessRun, seen: string[]): Promise<void> {
  return new Promise((resolve) =>
    run.whenDone(() => {
      seen.push('done');
      resolve();
    }),
  );
}

test('a run that answers without waiting is done before run() returns: whenDone calls its listener at once', () => {
  const { dispatcher } = setUp();
  const emitted: JsonRpcMessage[] = [];
  const run = dispatcher.run({ jsonrpc: '2.0', id: 1, method: 'server/discover' }, client, true, info, (message) => void emitted.push(message));
  expect(emitted).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ resultType: 'complete' }) })]);
  const told: string[] = [];
  run.whenDone(() => told.push('done'));
  expect(told).toEqual(['done']);
});

test('a tool call emits its response, then is done, once', async () => {
  const { dispatcher } = setUp();
  const seen: string[] = [];
  const run = dispatcher.run(call(2, 'sum', { a: 2, b: 3 }), client, true, info, (message) => void seen.push(`response ${JSON.stringify((message as { result?: unknown }).result)}`));
  await journal(run, seen);
  expect(seen).toEqual(['response {"content":[{"type":"text","text":"5"}],"resultType":"complete"}', 'done']);
});

test('a cancelled run emits nothing more and is done', async () => {
  const { dispatcher, release } = setUp();
  const seen: string[] = [];
  const run = dispatcher.run(call(3, 'gated'), client, true, info, () => void seen.push('response'));
  const done = journal(run, seen);
  run.ctx.abort(new Error('the client left'));
  await done;
  release();
  expect(seen).toEqual(['done']);
});

test('a low-level handler whose thenable throws from then() is answered with an error, and the run ends', () => {
  const server = new McpServer({ name: 'thenables', version: '1.0.0' });
  server.setRequestHandler('custom/odd', () => ({ then: () => { throw new Error('odd thenable'); } }) as unknown as Promise<Record<string, unknown>>);
  const errors: unknown[] = [];
  const dispatcher = new StatelessDispatcher(server, new RequestStateCodec(undefined, 60_000), { ttlMs: 0, cacheScope: 'public' }, (error) => errors.push(error));
  const emitted: JsonRpcMessage[] = [];
  const run = dispatcher.run({ jsonrpc: '2.0', id: 9, method: 'custom/odd' }, client, true, info, (message) => void emitted.push(message));
  const told: string[] = [];
  run.whenDone(() => told.push('done'));
  expect(emitted).toEqual([expect.objectContaining({ id: 9, error: expect.objectContaining({ code: -32603 }) })]);
  expect(told).toEqual(['done']);
});

test('a listener that throws reaches onError; the run still ended', async () => {
  const { dispatcher, errors } = setUp();
  const emitted: JsonRpcMessage[] = [];
  const run = dispatcher.run(call(4, 'sum', { a: 1, b: 1 }), client, true, info, (message) => void emitted.push(message));
  const fault = new Error('listener fault');
  run.whenDone(() => {
    throw fault;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(emitted).toHaveLength(1);
  expect(errors).toEqual([fault]);
});

test('a 2026-07-28 tool call makes the tool\'s promise, the registry\'s then on it and its own then, no more', (finish) => {
  const { dispatcher } = setUp();
  // Warm first (the first call of a tool compiles its schema paths); callbacks, not awaits, while counting: an
  // await of the test's own would be counted too.
  dispatcher.run(call(5, 'sum', { a: 1, b: 2 }), client, true, info, () => undefined).whenDone(() => {
    let made = 0;
    const stop = promiseHooks.onInit(() => made++);
    const run = dispatcher.run(call(6, 'sum', { a: 1, b: 2 }), client, true, info, () => undefined);
    run.whenDone(() => {
      stop();
      // An async function per run and its await made two more before whenDone. (A failed expect thrown here would
      // go to the dispatcher's onError: it is handed to jest instead.)
      try {
        expect(made).toBe(3);
        finish();
      } catch (error) {
        finish(error as Error);
      }
    });
  });
});
