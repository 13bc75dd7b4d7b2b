/**
 * A `subscriptions/listen` filter lives as long as its stream, so it is bounded: at most `maxListenFilterUris`
 * resource URIs of at most `maxListenFilterBytes` characters in all (400 / -32602 beyond), and a listener that
 * stops reading is cut off past `maxBufferedBytesPerStream` instead of buffering without end.
 */
import { openLive, type LiveResponse } from '../helpers/http-helpers.js';
import { modernBody, modernHeaders, startModern, type ModernHarness } from '../helpers/modern.js';

const open: LiveResponse[] = [];
let h: ModernHarness;
afterEach(async () => {
  for (const live of open.splice(0)) live.close();
  await h?.close();
});

async function listen(id: number, resourceSubscriptions: string[]): Promise<LiveResponse> {
  const body = modernBody({ id, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions } } });
  const live = await openLive(h, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined), body });
  open.push(live);
  return live;
}

const uris = (count: number, length = 20) => Array.from({ length: count }, (_, i) => `test://r/${String(i).padStart(length - 9, '0')}`);

test('more URIs than maxListenFilterUris: 400 / -32602 naming the option, with the request id', async () => {
  h = await startModern({ maxListenFilterUris: 10 });
  const live = await listen(41, uris(11));
  await live.ended;
  expect(live.status).toBe(400);
  expect(JSON.parse(live.text())).toMatchObject({ id: 41, error: { code: -32602, message: expect.stringContaining('maxListenFilterUris') } });
});

test('URIs longer in all than maxListenFilterBytes: 400 / -32602 naming the option', async () => {
  h = await startModern({ maxListenFilterBytes: 1000 });
  const live = await listen(42, uris(20, 100)); // 2,000 characters
  await live.ended;
  expect(live.status).toBe(400);
  expect(JSON.parse(live.text())).toMatchObject({ id: 42, error: { code: -32602, message: expect.stringContaining('maxListenFilterBytes') } });
});

test('the defaults refuse a filter of megabytes (1000 URIs, 64 KiB)', async () => {
  h = await startModern();
  const tooMany = await listen(43, uris(1001));
  await tooMany.ended;
  expect(tooMany.status).toBe(400);
  const tooLong = await listen(44, [`test://${'x'.repeat(70 * 1024)}`]);
  await tooLong.ended;
  expect(tooLong.status).toBe(400);
});

test('a filter within the limits is acknowledged and delivers updates of the URIs it names, and only those', async () => {
  h = await startModern({ maxListenFilterUris: 10 });
  const live = await listen(45, ['test://static-text', ...uris(9)]);
  expect(live.status).toBe(200);
  await live.waitFor(() => live.messages().length >= 1);
  h.server.notifyResourceUpdated('test://not-named');
  h.server.notifyResourceUpdated('test://static-text');
  await live.waitFor(() => live.messages().length >= 2);
  const updates = live.messages().slice(1) as unknown as Array<{ method: string; params: { uri: string } }>;
  expect(updates.map((message) => [message.method, message.params.uri])).toEqual([['notifications/resources/updated', 'test://static-text']]);
});
