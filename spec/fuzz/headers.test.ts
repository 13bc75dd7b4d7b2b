/**
 * Properties 3 and 4: the headers of POST, GET and DELETE requests fuzzed (Accept, Content-Type,
 * MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Mcp-* names of any kind, Host and Origin, each absent,
 * odd, or sent twice) in every configuration: every answer is below 500 and well-formed, GETs and DELETEs
 * included, and a request's id is echoed or null. Also: two Host lines are refused with 400 (RFC 9112 §3.2).
 */
import fc from 'fast-check';
import {
  acceptValue,
  contentTypeValue,
  headerValue,
  hostValue,
  lastEventIdValue,
  mcpHeaderName,
  originValue,
  sessionIdValue,
  versionValue,
} from './arbitraries.js';
import { BOB_MARKER, CONFIG_NAMES, MODERN, PRINCIPAL_HEADER, SEED, SESSION_VERSIONS, envelope, expectStillServing, runs, useTargets, type FuzzTarget } from './fixture.js';
import { checkAnswer, responsesOf } from './oracles.js';

const targets = useTargets();

/** Bodies that pass every check when their headers are right, so that only the headers decide the answer. */
const BODIES = [
  { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
  { jsonrpc: '2.0', id: 'p', method: 'ping' },
  { jsonrpc: '2.0', id: 12, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'region_tool', arguments: { region: 'eu', count: 2 }, _meta: envelope() } },
  { jsonrpc: '2.0', id: 14, method: 'resources/read', params: { uri: 'fixture://static', _meta: envelope() } },
  { jsonrpc: '2.0', id: 15, method: 'server/discover', params: { _meta: envelope() } },
];

/** An optional header: absent, once, or twice (the second value independent of the first). */
function optionalHeader(name: string, value: fc.Arbitrary<string>, absentWeight = 2): fc.Arbitrary<string[]> {
  return fc.oneof(
    { weight: absentWeight, arbitrary: fc.constant<string[]>([]) },
    { weight: 5, arbitrary: value.map((v) => [name, v]) },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [name, a, name, b]) },
  );
}

/** A full header set for a request to `target`, built from alice's real session ids and event ids. */
function headerSet(target: FuzzTarget, withBodyHeaders: boolean): fc.Arbitrary<string[]> {
  const sessionIds = [...target.alice.values(), 'not-a-session'];
  const eventIds = [...target.aliceEventIds];
  return fc
    .record({
      host: fc.oneof({ weight: 8, arbitrary: fc.constant(['Host', '127.0.0.1']) }, { weight: 2, arbitrary: optionalHeader('Host', hostValue) }),
      // Origin and Host are checked first: mostly absent or right, or nothing behind them would be reached.
      origin: optionalHeader('Origin', originValue, 15),
      accept: optionalHeader('Accept', acceptValue, 1),
      contentType: withBodyHeaders ? optionalHeader('Content-Type', contentTypeValue, 1) : fc.constant([]),
      version: optionalHeader('MCP-Protocol-Version', versionValue),
      session: optionalHeader('Mcp-Session-Id', sessionIdValue(sessionIds)),
      lastEventId: optionalHeader('Last-Event-ID', lastEventIdValue(eventIds)),
      principal: fc.constantFrom([PRINCIPAL_HEADER, 'alice'], [PRINCIPAL_HEADER, 'alice'], []),
      extra: fc.array(fc.tuple(mcpHeaderName, headerValue), { maxLength: 4 }),
    })
    .map(({ host, origin, accept, contentType, version, session, lastEventId, principal, extra }) => [
      ...host, ...origin, ...accept, ...contentType, ...version, ...session, ...lastEventId, ...principal, ...extra.flat(),
    ]);
}

/** alice's session ids a successful DELETE ended: open new ones, so later cases still reach a live session. */
async function renewDeleted(target: FuzzTarget, headers: string[]): Promise<void> {
  for (const version of SESSION_VERSIONS) {
    const id = target.alice.get(version);
    if (id !== undefined && headers.includes(id)) await target.aliceSession(version, true);
  }
}

describe.each(CONFIG_NAMES.map((name, index) => [name, index] as const))('%s', (name, index) => {
  it('answers POSTs with fuzzed headers below 500, echoing the id or null', async () => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(headerSet(target, true), fc.constantFrom(...BODIES), async (headers, message) => {
        const res = await target.client.send({ method: 'POST', headers, body: JSON.stringify(message) });
        checkAnswer(res);
        for (const response of responsesOf(res)) {
          if (response.id !== null && response.id !== (message as { id?: unknown }).id) throw new Error(`response id ${JSON.stringify(response.id)} for request id ${JSON.stringify((message as { id?: unknown }).id)}`);
        }
      }),
      { seed: SEED + 100 + index, numRuns: runs(250) },
    );
  });

  it('answers GETs and DELETEs with fuzzed headers below 500, never with bob\'s data', async () => {
    const target = targets.get(name);
    const bobSession = target.bob.sessionId;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'DELETE'), headerSet(target, false), async (method, headers) => {
        const res = await target.client.send({ method, headers, read: 'window' });
        checkAnswer(res);
        if (res.text.includes(BOB_MARKER)) throw new Error(`alice's ${method} got bob's marker: ${res.text.slice(0, 500)}`);
        if (bobSession !== undefined && res.text.includes(bobSession)) throw new Error(`alice's ${method} got bob's session id: ${res.text.slice(0, 500)}`);
        if (method === 'DELETE' && res.status === 200) await renewDeleted(target, headers);
      }),
      { seed: SEED + 200 + index, numRuns: runs(150) },
    );
  });

  it('refuses a request with two Host headers with 400', async () => {
    const target = targets.get(name);
    await fc.assert(
      fc.asyncProperty(hostValue, hostValue, fc.constantFrom('POST', 'GET', 'DELETE'), async (first, second, method) => {
        const headers = ['Host', first, 'Host', second, 'Accept', 'application/json, text/event-stream', 'Content-Type', 'application/json', 'MCP-Protocol-Version', MODERN, 'Mcp-Method', 'server/discover'];
        const body = method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }) : undefined;
        const res = await target.client.send({ method, headers, body, read: 'window' });
        checkAnswer(res);
        expect(res.status).toBe(400);
      }),
      { seed: SEED + 300 + index, numRuns: runs(25) },
    );
  });

  it('still serves a tools/call after the fuzz', async () => {
    await expectStillServing(targets.get(name));
  });
});
