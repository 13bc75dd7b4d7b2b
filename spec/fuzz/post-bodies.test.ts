/**
 * Property 1: any body POSTed to the endpoint (any JSON value with prototype keys, values whose String() throws,
 * deep nesting, every Unicode code point, numbers JSON cannot hold, batches, duplicate keys, bytes that are not
 * JSON), with the headers of a session client, a client without a session, or a 2026-07-28 client, gets an
 * answer below 500 that is well-formed JSON-RPC, in every configuration.
 */
import fc from 'fast-check';
import { anyBody } from './arbitraries.js';
import { CONFIG_NAMES, MODERN, PRINCIPAL_HEADER, SEED, SESSION_VERSIONS, expectStillServing, modernHeaders, runs, sessionHeaders, useTargets, type FuzzTarget } from './fixture.js';
import { checkAnswer } from './oracles.js';

const targets = useTargets();

type HeaderSet = 'session' | 'sessionless' | 'modern' | 'modern-bare';

async function headersFor(target: FuzzTarget, set: HeaderSet, version: (typeof SESSION_VERSIONS)[number]): Promise<string[]> {
  switch (set) {
    case 'session':
      return sessionHeaders('alice', version, target.stateful ? await target.aliceSession(version) : undefined);
    case 'sessionless':
      return sessionHeaders('alice', version);
    case 'modern':
      return modernHeaders('alice', 'tools/call', 'echo');
    case 'modern-bare':
      return ['Host', 'localhost', 'Accept', 'application/json, text/event-stream', 'Content-Type', 'application/json', 'MCP-Protocol-Version', MODERN, PRINCIPAL_HEADER, 'alice'];
  }
}

describe.each(CONFIG_NAMES)('%s', (name) => {
  it('answers any POST body below 500 with well-formed JSON-RPC', async () => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(anyBody, fc.constantFrom<HeaderSet>('session', 'sessionless', 'modern', 'modern-bare'), fc.constantFrom(...SESSION_VERSIONS), async (body, set, version) => {
        const headers = await headersFor(target, set, version);
        // A body that opens subscriptions/listen gets a stream that stays open: read what it says, then leave.
        const read = body.includes('subscriptions/listen') ? 'window' : 'whole';
        checkAnswer(await target.client.send({ method: 'POST', headers, body, read }));
      }),
      { seed: SEED, numRuns: runs(350) },
    );
  });

  it('still serves a tools/call after the fuzz', async () => {
    await expectStillServing(targets.get(name));
  });
});
