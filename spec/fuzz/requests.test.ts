/**
 * Property 2: request-shaped bodies (every MCP method, random params with hostile values in every field, valid
 * and broken ids) from a 2025 client in its session, a 2025 client without a session, and a 2026-07-28 client
 * (the `_meta` envelope with random or valid protocolVersion, capabilities and clientInfo; `Mcp-Method`,
 * `Mcp-Name` and `Mcp-Param-*` headers that match, mismatch, use the base64 sentinel or are missing). Every
 * answer is below 500 and well-formed; a response to a request with a valid id carries that id; results have
 * the shape their method promises.
 */
import fc from 'fast-check';
import { anyKey, encode, hostileValue, nastyString, prototypeKey, requestCase, unprintable, type Era, type RequestCase } from './arbitraries.js';
import { ACCEPT_BOTH, CONFIG_NAMES, MODERN, PRINCIPAL_HEADER, PROMPT_NAMES, RESOURCE_TEMPLATE, SEED, envelope, expectStillServing, modernHeaders, runs, sessionHeaders, useTargets, type FuzzTarget } from './fixture.js';
import { checkAnswer, checkEchoedId, checkResultShape, isValidId, responsesOf } from './oracles.js';

const targets = useTargets();

const ERAS: readonly Era[] = ['session', 'sessionless', 'modern'];

/** The headers of a case: a well-behaved client of its era, with the case's version header and extra lines. */
async function headersFor(target: FuzzTarget, c: RequestCase): Promise<string[]> {
  let headers: string[];
  if (c.era === 'modern') {
    headers = ['Host', '127.0.0.1', 'Accept', ACCEPT_BOTH, 'Content-Type', 'application/json', PRINCIPAL_HEADER, 'alice', 'MCP-Protocol-Version', MODERN];
  } else {
    const sessionId = c.era === 'session' && target.stateful ? await target.aliceSession(c.version) : undefined;
    headers = sessionHeaders('alice', c.version, sessionId);
  }
  if (c.versionHeader !== 'match') {
    const at = headers.indexOf('MCP-Protocol-Version');
    if (at >= 0) headers.splice(at, 2);
    if (c.versionHeader !== undefined) headers.push('MCP-Protocol-Version', c.versionHeader);
  }
  return [...headers, ...c.extraHeaders];
}

describe.each(CONFIG_NAMES.map((name, index) => [name, index] as const))('%s', (name, index) => {
  it.each(ERAS.map((era, eraIndex) => [era, eraIndex] as const))('answers %s-era requests below 500, echoing their id, with well-shaped results', async (era, eraIndex) => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(requestCase(era), async (c) => {
        const body = encode(c.message);
        const sent = JSON.parse(body) as Record<string, unknown>;
        const read = sent.method === 'subscriptions/listen' ? 'window' : 'whole';
        const res = await target.client.send({ method: 'POST', headers: await headersFor(target, c), body, read });
        checkAnswer(res);
        if (isValidId(sent.id)) checkEchoedId(res, sent.id);
        checkResultShape(res, sent.method);
      }),
      { seed: SEED + 10 * index + eraIndex, numRuns: runs(170) },
    );
  });

  it('answers batches (2025-03-26 sessions) below 500, each response to a request of the batch', async () => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(fc.array(requestCase('session'), { minLength: 1, maxLength: 5 }), async (cases) => {
        const body = `[${cases.map((c) => encode(c.message)).join(',')}]`;
        const sent = JSON.parse(body) as Array<Record<string, unknown>>;
        const sessionId = target.stateful ? await target.aliceSession('2025-03-26') : undefined;
        const read = sent.some((message) => message?.method === 'subscriptions/listen') ? 'window' : 'whole';
        const res = await target.client.send({ method: 'POST', headers: sessionHeaders('alice', '2025-03-26', sessionId), body, read });
        checkAnswer(res);
        // Every id a batch item carried may be echoed (an invalid one too, in the error about it).
        const ids = sent.filter((message) => message !== null && typeof message === 'object').map((message) => message.id).filter((id) => typeof id === 'string' || typeof id === 'number');
        for (const response of responsesOf(res)) {
          if (response.id !== null && !ids.some((id) => id === response.id)) throw new Error(`a response with id ${JSON.stringify(response.id)}, which no request of the batch had: ${res.text.slice(0, 500)}`);
        }
      }),
      { seed: SEED + 10 * index + 6, numRuns: runs(60) },
    );
  });

  it('answers a 2026-07-28 retry that carries its own requestState and any answers', async () => {
    const target = targets.get(name);
    const answer = fc.oneof(
      fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel'), content: fc.dictionary(fc.oneof(fc.constantFrom('secret', 'colour', 'name'), anyKey), hostileValue, { maxKeys: 3 }) }, { requiredKeys: [] }),
      hostileValue,
    );
    const retry = fc.record({
      tool: fc.constantFrom('two_step', 'ask'),
      answers: fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom('first', 'second', 'name'), anyKey), answer, { maxKeys: 3 }), hostileValue),
      capabilities: fc.constantFrom({ elicitation: {} }, {}),
    });
    await fc.assert(
      fc.asyncProperty(retry, async ({ tool, answers, capabilities }) => {
        const call = (id: number, extra: Record<string, unknown>) =>
          target.client.send({
            method: 'POST',
            headers: modernHeaders('alice', 'tools/call', tool),
            body: encode({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {}, _meta: envelope(capabilities), ...extra } }),
          });
        const first = await call(1, {});
        checkAnswer(first);
        const requestState = (responsesOf(first)[0]?.result as { requestState?: unknown } | undefined)?.requestState;
        const res = await call(2, requestState === undefined ? { inputResponses: answers } : { inputResponses: answers, requestState });
        checkAnswer(res);
        checkEchoedId(res, 2);
        checkResultShape(res, 'tools/call');
      }),
      { seed: SEED + 10 * index + 7, numRuns: runs(40) },
    );
  });

  it('completes any argument name of a prompt or template with a list of strings, or refuses it', async () => {
    const target = targets.get(name);
    const completion = fc.record({
      ref: fc.constantFrom({ type: 'ref/prompt', name: PROMPT_NAMES[0] }, { type: 'ref/resource', uri: RESOURCE_TEMPLATE }),
      argument: fc.record({ name: fc.oneof(prototypeKey, anyKey), value: fc.oneof(nastyString, unprintable) }),
      modern: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(completion, async ({ ref, argument, modern }) => {
        const params: Record<string, unknown> = { ref, argument };
        if (modern) params._meta = envelope();
        const body = encode({ jsonrpc: '2.0', id: 7, method: 'completion/complete', params });
        const headers = modern
          ? modernHeaders('alice', 'completion/complete')
          : sessionHeaders('alice', '2025-11-25', target.stateful ? await target.aliceSession('2025-11-25') : undefined);
        const res = await target.client.send({ method: 'POST', headers, body });
        checkAnswer(res);
        checkEchoedId(res, 7);
        checkResultShape(res, 'completion/complete');
      }),
      { seed: SEED + 10 * index + 5, numRuns: runs(60) },
    );
  });

  it('still serves a tools/call after the fuzz', async () => {
    await expectStillServing(targets.get(name));
  });
});
