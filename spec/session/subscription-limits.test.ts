/** Limits of resources/subscribe in a session: URI length, distinct subscriptions per session. */
import { LocalSessionManager } from '../../lib/index.js';
import { RawClient } from '../helpers/raw-client.js';
import { serve, type Served } from '../helpers/serve.js';
import { postWithin, fixtureServer, sseMessages } from './fixtures.js';

let served: Served;
beforeAll(async () => {
  served = await serve({ server: fixtureServer(), sseKeepAlive: 0, sessionManager: new LocalSessionManager() });
});
afterAll(() => served.close());

const subscribe = (id: number, uri: string) => ({ jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri } });
const unsubscribe = (id: number, uri: string) => ({ jsonrpc: '2.0', id, method: 'resources/unsubscribe', params: { uri } });

/** The final response of a session POST. */
async function answer(client: RawClient, message: { id: number }): Promise<any> {
  const reply = await postWithin(client, message);
  expect(reply.status).toBe(200);
  const response = sseMessages(reply.body).find((m) => !('method' in m) && m.id === message.id);
  if (!response) throw new Error(`no response to ${message.id}: ${reply.body}`);
  return response;
}

test('a URI longer than 8192 characters is refused with -32602; one of exactly 8192 is accepted', async () => {
  const client = new RawClient(served.url);
  await client.initialize();
  const longest = `test://x/${'a'.repeat(8192 - 'test://x/'.length)}`;
  expect(longest).toHaveLength(8192);
  expect(await answer(client, subscribe(2, longest))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  const tooLong = await answer(client, subscribe(3, `${longest}b`));
  expect(tooLong).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.stringContaining('8192') } });
  expect(tooLong.result).toBeUndefined();
});

test('the 1001st distinct subscription of a session is refused with -32602; re-subscribing an existing URI is fine', async () => {
  const client = new RawClient(served.url);
  await client.initialize();
  const uri = (n: number) => `test://sub/${n}`;
  // 1000 distinct subscriptions, 50 requests at a time.
  for (let start = 0; start < 1000; start += 50) {
    const batch = Array.from({ length: 50 }, (_, k) => start + k);
    const replies = await Promise.all(batch.map((n) => answer(client, subscribe(100 + n, uri(n)))));
    for (const [k, reply] of replies.entries()) expect(reply).toEqual({ jsonrpc: '2.0', id: 100 + batch[k], result: {} });
  }
  const refused = await answer(client, subscribe(2000, uri(1000)));
  expect(refused).toMatchObject({ id: 2000, error: { code: -32602, message: expect.stringContaining('1000') } });
  // Already held: not a new subscription, so not refused.
  expect(await answer(client, subscribe(2001, uri(0)))).toEqual({ jsonrpc: '2.0', id: 2001, result: {} });
  expect(await answer(client, subscribe(2002, uri(999)))).toEqual({ jsonrpc: '2.0', id: 2002, result: {} });
  // Still full for new URIs; room again after an unsubscribe.
  expect(await answer(client, subscribe(2003, uri(1001)))).toMatchObject({ id: 2003, error: { code: -32602 } });
  expect(await answer(client, unsubscribe(2004, uri(5)))).toEqual({ jsonrpc: '2.0', id: 2004, result: {} });
  expect(await answer(client, subscribe(2005, uri(1000)))).toEqual({ jsonrpc: '2.0', id: 2005, result: {} });
  expect(await answer(client, subscribe(2006, uri(5)))).toMatchObject({ id: 2006, error: { code: -32602 } });

  // The limit is per session: another session starts empty.
  const other = new RawClient(served.url);
  await other.initialize();
  expect(await answer(other, subscribe(2, uri(1000)))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
});
