/**
 * The frame of a notification on a listen stream is made once per notification and gets each stream's
 * subscription id spliced in: it must be exactly the frame made for that stream on its own.
 */
import fc from 'fast-check';
import { formatStreamEvent } from '../../lib/http/sse-format.js';
import { listenFrame } from '../../lib/http/listen-frame.js';
import type { JsonRpcNotification } from '../../lib/protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../../lib/protocol/meta-keys.js';

/** The frame as each stream made it before: the notification tagged with its id, serialised on its own. */
function framedAlone(notification: JsonRpcNotification, subscriptionId: string | number): string {
  const params = { ...notification.params, _meta: { ...(notification.params?._meta as object | undefined), [META_SUBSCRIPTION_ID]: subscriptionId } };
  return formatStreamEvent({ message: { jsonrpc: '2.0', method: notification.method, params } });
}

const ids = fc.oneof(fc.integer(), fc.string(), fc.constant('\u0000subscription-id\u0000'), fc.constant('a"b\\c\n'));

test('for any notification and any ids, each stream gets the frame it would have made alone', () => {
  const notifications = fc.record({
    method: fc.string({ minLength: 1 }),
    params: fc.dictionary(fc.string(), fc.jsonValue()),
    meta: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
  });
  fc.assert(
    fc.property(notifications, fc.array(ids, { minLength: 1, maxLength: 5 }), ({ method, params, meta }, subscriptionIds) => {
      const notification: JsonRpcNotification = { jsonrpc: '2.0', method, params: meta === undefined ? params : { ...params, _meta: meta } };
      for (const id of subscriptionIds) expect(listenFrame(notification, id)).toBe(framedAlone(notification, id));
    }),
  );
});

test('a notification that already names a subscription id, or holds the placeholder text, is framed correctly', () => {
  const named: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION_ID]: 'theirs', other: 1 }, after: 'x' } };
  expect(listenFrame(named, 'ours')).toBe(framedAlone(named, 'ours'));
  expect(JSON.parse(listenFrame(named, 7).split('data: ')[1]).params._meta[META_SUBSCRIPTION_ID]).toBe(7);
  const tricky: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { data: '\u0000subscription-id\u0000' } };
  expect(listenFrame(tricky, 'a')).toBe(framedAlone(tricky, 'a'));
  expect(listenFrame(tricky, 2)).toBe(framedAlone(tricky, 2));
});
