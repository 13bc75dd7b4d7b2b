/**
 * Property 5: no response to alice (or to an anonymous caller) ever carries bob's data. bob has a session whose
 * stream echoed a marker only his data carries, a persisted stateless stream with it (configurations with an
 * EventStore), and a requestState that sealed it as an earlier answer. alice fuzzes resumes with Last-Event-IDs
 * spliced from bob's and her own real ids, requests and DELETEs in bob's session, and retries with bob's
 * requestState (as is or altered): never the marker, never bob's session id or stream ids, bob's session
 * refused and left alive.
 */
import fc from 'fast-check';
import { encode, headerValue, lastEventIdValue, nastyString, requestCase } from './arbitraries.js';
import { ACCEPT_BOTH, BOB_MARKER, CONFIG_NAMES, PRINCIPAL_HEADER, SEED, SESSION_VERSIONS, envelope, expectStillServing, modernHeaders, runs, sessionHeaders, useTargets, type FuzzTarget, type WireResponse } from './fixture.js';
import { checkAnswer } from './oracles.js';

const targets = useTargets();

/** The caller of a fuzzed request: alice, or nobody (anonymous requests must not see bob's data either). */
const caller = fc.constantFrom<string | undefined>('alice', 'alice', undefined);

/** Parts of bob's identity that must never reach anyone else: his session id and his stateless stream tag. */
function bobSecrets(target: FuzzTarget): string[] {
  const secrets = target.bob.sessionId === undefined ? [] : [target.bob.sessionId];
  for (const id of target.bob.eventIds) {
    const tag = /^stateless:([0-9a-f]{16}):/.exec(id)?.[1];
    if (tag !== undefined && !secrets.includes(tag)) secrets.push(tag);
  }
  return secrets;
}

/** Nothing of bob's in the answer; his session id only echoed back in an error to a request that sent it. */
function expectNothingOfBob(target: FuzzTarget, res: WireResponse, sent: string): void {
  if (res.text.includes(BOB_MARKER)) throw new Error(`bob's marker reached another caller: ${res.text.slice(0, 800)}`);
  for (const secret of bobSecrets(target)) {
    if (res.eventIds.some((id) => id.includes(secret))) throw new Error(`an event id of bob's streams reached another caller: ${res.eventIds.join(' ')}`);
    const echoedInError = sent.includes(secret) && res.status >= 400;
    if (res.text.includes(secret) && !echoedInError) throw new Error(`bob's ${secret} reached another caller: ${res.text.slice(0, 800)}`);
  }
}

describe.each(CONFIG_NAMES.map((name, index) => [name, index] as const))('%s', (name, index) => {
  it('resumes with Last-Event-IDs spliced from bob\'s and alice\'s real ids never replay bob\'s events', async () => {
    const target = targets.get(name);
    const sessions = [...target.alice.values(), ...(target.bob.sessionId === undefined ? [] : [target.bob.sessionId])];
    const resume = fc.record({
      principal: caller,
      lastEventId: lastEventIdValue([...target.bob.eventIds, ...target.aliceEventIds]),
      session: sessions.length > 0 ? fc.option(fc.constantFrom(...sessions), { nil: undefined, freq: 5 }) : fc.constant(undefined),
      version: fc.option(fc.constantFrom(...SESSION_VERSIONS, '2026-07-28'), { nil: undefined }),
      accept: fc.constantFrom('text/event-stream', ACCEPT_BOTH),
    });
    await fc.assert(
      fc.asyncProperty(resume, async ({ principal, lastEventId, session, version, accept }) => {
        const headers = ['Host', '127.0.0.1', 'Accept', accept, 'Last-Event-ID', lastEventId];
        if (principal !== undefined) headers.push(PRINCIPAL_HEADER, principal);
        if (session !== undefined) headers.push('Mcp-Session-Id', session);
        if (version !== undefined) headers.push('MCP-Protocol-Version', version);
        const res = await target.client.send({ method: 'GET', headers, read: 'window' });
        checkAnswer(res);
        expectNothingOfBob(target, res, headers.join('\n'));
        if (session !== undefined && session === target.bob.sessionId && version !== '2026-07-28') expect(res.status).toBe(404);
      }),
      { seed: SEED + 400 + index, numRuns: runs(100) },
    );
  });

  it('requests and DELETEs in bob\'s session from anyone else are refused with 404', async () => {
    const target = targets.get(name);
    const bobSession = target.bob.sessionId;
    if (bobSession === undefined) return; // no sessions in this configuration: the resumes and requestState cover it
    await fc.assert(
      fc.asyncProperty(caller, fc.constantFrom(...SESSION_VERSIONS), fc.oneof({ weight: 4, arbitrary: requestCase('session') }, { weight: 1, arbitrary: fc.constant(undefined) }), async (principal, version, c) => {
        const headers = sessionHeaders(principal, version, bobSession);
        const res = c === undefined
          ? await target.client.send({ method: 'DELETE', headers })
          : await target.client.send({ method: 'POST', headers, body: encode(c.message) });
        checkAnswer(res);
        expectNothingOfBob(target, res, headers.join('\n'));
        // 400 for what is refused before the session is looked up (a batch, an initialize, a broken message).
        expect([400, 404]).toContain(res.status);
      }),
      { seed: SEED + 500 + index, numRuns: runs(50) },
    );
    // bob's session survived all of it.
    const own = await target.client.send({
      method: 'POST',
      headers: sessionHeaders('bob', '2025-11-25', bobSession),
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'echo', arguments: { text: 'bob again' } } }),
    });
    expect(own.status).toBe(200);
    expect(own.text).toContain('bob again');
  });

  it('retries with bob\'s requestState, as is or altered, never reveal his answers', async () => {
    const target = targets.get(name);
    const state = target.bob.requestState!;
    const requestState = fc.oneof(
      { weight: 3, arbitrary: fc.constant(state) },
      { weight: 1, arbitrary: fc.nat(state.length).map((at) => state.slice(0, at) + state.slice(at + 1)) },
      { weight: 1, arbitrary: fc.tuple(fc.nat(state.length), fc.constantFrom('A', '-', '.', '=')).map(([at, char]) => state.slice(0, at) + char + state.slice(at + 1)) },
      { weight: 1, arbitrary: nastyString.map((tail) => state + tail) },
    );
    const retry = fc.record({
      principal: caller,
      requestState,
      tool: fc.constantFrom('two_step', 'two_step', 'ask', 'echo'),
      args: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 6 }), nastyString, { maxKeys: 2 })),
      answers: fc.oneof(fc.constant(undefined), fc.constant({ second: { action: 'accept', content: { colour: 'red' } } }), fc.dictionary(fc.constantFrom('first', 'second', 'name'), fc.record({ action: fc.constantFrom('accept', 'decline'), content: fc.dictionary(fc.string({ maxLength: 6 }), headerValue, { maxKeys: 2 }) }))),
    });
    await fc.assert(
      fc.asyncProperty(retry, async ({ principal, requestState: token, tool, args, answers }) => {
        const params: Record<string, unknown> = { name: tool, arguments: args, requestState: token, _meta: envelope({ elicitation: {} }) };
        if (answers !== undefined) params.inputResponses = answers;
        const headers = modernHeaders(principal, 'tools/call', tool);
        const res = await target.client.send({ method: 'POST', headers, body: encode({ jsonrpc: '2.0', id: 5, method: 'tools/call', params }) });
        checkAnswer(res);
        expectNothingOfBob(target, res, headers.join('\n'));
      }),
      { seed: SEED + 600 + index, numRuns: runs(50) },
    );
  });

  it('still serves a tools/call after the fuzz', async () => {
    await expectStillServing(targets.get(name));
  });
});
