import { type Harness, isResponseTo, type LiveResponse, openGet, openPost, openSession, postMessage, SESSION_ERA, sleep, sseMessages, startHarness, toolCall } from '../helpers/http-helpers.js';
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';

const methodOf = (m: JsonRpcMessage) => ('method' in m ? m.method : undefined);

describe.each(SESSION_ERA)('message routing for a %s client', (version) => {
  let h: Harness;
  let sessionId: string;
  let get: LiveResponse;
  beforeEach(async () => {
    h = await startHarness();
    sessionId = await openSession(h, version, { elicitation: {} });
    get = await openGet(h, version, sessionId);
  });
  afterEach(async () => {
    get.close();
    await h.close();
  });

  test('progress notifications and the response go to the POST stream of that request, never to GET', async () => {
    const res = await postMessage(h, version, sessionId, toolCall('p', 'progress', { steps: 3 }, { progressToken: 42 }));
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 42, progress: 1, total: 3, message: 'step 1' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 42, progress: 2, total: 3, message: 'step 2' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 42, progress: 3, total: 3, message: 'step 3' } },
      { jsonrpc: '2.0', id: 'p', result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    await sleep(30);
    expect(get.messages()).toEqual([]);
    expect(get.isEnded).toBe(false);
  });

  test('without a progressToken no progress is sent', async () => {
    const res = await postMessage(h, version, sessionId, toolCall('np', 'progress', { steps: 2 }));
    expect(sseMessages(res.text)).toEqual([{ jsonrpc: '2.0', id: 'np', result: { content: [{ type: 'text', text: 'done' }] } }]);
  });

  test('concurrent requests each get only their own progress', async () => {
    const [a, b] = await Promise.all([
      postMessage(h, version, sessionId, toolCall('a', 'progress', { steps: 4 }, { progressToken: 'ta' })),
      postMessage(h, version, sessionId, toolCall('b', 'progress', { steps: 4 }, { progressToken: 'tb' })),
    ]);
    const tokens = (text: string) => sseMessages(text).flatMap((m) => ('method' in m ? [m.params?.progressToken] : []));
    expect(tokens(a.text)).toEqual(['ta', 'ta', 'ta', 'ta']);
    expect(tokens(b.text)).toEqual(['tb', 'tb', 'tb', 'tb']);
    expect(sseMessages(a.text).at(-1)).toMatchObject({ id: 'a' });
    expect(sseMessages(b.text).at(-1)).toMatchObject({ id: 'b' });
  });

  test('list_changed goes to the GET stream only, not to an open POST stream', async () => {
    const post = await openPost(h, version, sessionId, toolCall('w', 'wait', { ms: 150 }));
    await sleep(20);
    h.server.tool('added', { description: 'runtime' }, () => ({ content: [] }));
    await get.waitForMessage((m) => methodOf(m) === 'notifications/tools/list_changed');
    await post.ended;
    expect(post.messages()).toEqual([{ jsonrpc: '2.0', id: 'w', result: { content: [{ type: 'text', text: 'waited 150' }] } }]);
    expect(get.messages()).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });

  test('list_changed reaches every session’s GET stream, once each', async () => {
    const otherSession = await openSession(h, version);
    const otherGet = await openGet(h, version, otherSession);
    h.server.tool('shared', {}, () => ({ content: [] }));
    await get.waitForMessage((m) => methodOf(m) === 'notifications/tools/list_changed');
    await otherGet.waitForMessage((m) => methodOf(m) === 'notifications/tools/list_changed');
    await sleep(20);
    expect(get.messages()).toHaveLength(1);
    expect(otherGet.messages()).toHaveLength(1);
    otherGet.close();
  });

  test('ctx.elicit goes on the POST stream of its request; the client’s answer (202) resolves it', async () => {
    const post = await openPost(h, version, sessionId, toolCall('e', 'ask'));
    const elicit = await post.waitForMessage((m) => methodOf(m) === 'elicitation/create');
    expect(elicit).toEqual({
      jsonrpc: '2.0',
      id: expect.anything(),
      method: 'elicitation/create',
      params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    });
    const requestId = (elicit as { id: string | number }).id;
    const answer = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: requestId, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    const response = await post.waitForMessage(isResponseTo('e'));
    expect(response).toEqual({ jsonrpc: '2.0', id: 'e', result: { content: [{ type: 'text', text: 'hello Ada (accept)' }] } });
    await post.ended;
    expect(post.messages().map((m) => methodOf(m) ?? 'response')).toEqual(['elicitation/create', 'response']);
    await sleep(20);
    expect(get.messages()).toEqual([]);
  });

  test('an error answer to ctx.elicit rejects it: the tools/call fails with the client’s error', async () => {
    const post = await openPost(h, version, sessionId, toolCall('e2', 'ask'));
    const elicit = (await post.waitForMessage((m) => methodOf(m) === 'elicitation/create')) as { id: string | number };
    const answer = await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: elicit.id, error: { code: -32042, message: 'user went away' } });
    expect(answer.status).toBe(202);
    const response = await post.waitForMessage(isResponseTo('e2'));
    expect(response).toEqual({ jsonrpc: '2.0', id: 'e2', error: { code: -32042, message: 'user went away' } });
  });

  test('concurrent elicitations are answered independently, each on its own stream', async () => {
    const first = await openPost(h, version, sessionId, toolCall('x1', 'ask'));
    const second = await openPost(h, version, sessionId, toolCall('x2', 'ask'));
    const e1 = (await first.waitForMessage((m) => methodOf(m) === 'elicitation/create')) as { id: string | number };
    const e2 = (await second.waitForMessage((m) => methodOf(m) === 'elicitation/create')) as { id: string | number };
    expect(e1.id).not.toEqual(e2.id);
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: e2.id, result: { action: 'accept', content: { name: 'Two' } } });
    await postMessage(h, version, sessionId, { jsonrpc: '2.0', id: e1.id, result: { action: 'decline' } });
    expect(await second.waitForMessage(isResponseTo('x2'))).toMatchObject({ result: { content: [{ text: 'hello Two (accept)' }] } });
    expect(await first.waitForMessage(isResponseTo('x1'))).toMatchObject({ result: { content: [{ text: 'hello undefined (decline)' }] } });
    expect(first.messages().filter((m) => methodOf(m) === 'elicitation/create')).toHaveLength(1);
    expect(second.messages().filter((m) => methodOf(m) === 'elicitation/create')).toHaveLength(1);
  });
});
