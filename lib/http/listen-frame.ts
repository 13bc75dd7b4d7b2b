import type { JsonRpcNotification, RequestId } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.js';
import { formatStreamEvent } from './sse-format.js';

/**
 * Stands for the subscription id while a notification's frame is made once for every listen stream. A notification
 * whose own content holds the same text (it would have to contain NUL characters) is framed per stream instead.
 */
const PLACEHOLDER = '\u0000subscription-id\u0000';
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/**
 * Each notification's frame, split around its subscription id: made for the first listener, reused by the rest;
 * null when the notification cannot be split (see `PLACEHOLDER`).
 */
const framesAround = new WeakMap<JsonRpcNotification, [before: string, after: string] | null>();

/** `notification` with `_meta["io.modelcontextprotocol/subscriptionId"]` set to `subscriptionId`. */
function tagNotification(notification: JsonRpcNotification, subscriptionId: unknown): JsonRpcNotification {
  return {
    jsonrpc: '2.0',
    method: notification.method,
    params: { ...notification.params, _meta: { ...(notification.params?._meta as object | undefined), [META_SUBSCRIPTION_ID]: subscriptionId } },
  };
}

/**
 * The SSE frame of `notification` on the listen stream `subscriptionId`. A notification fanned out to many streams
 * (a list_changed to every listener) is serialised once; each stream's frame is that text with its own id spliced in.
 */
export function listenFrame(notification: JsonRpcNotification, subscriptionId: RequestId): string {
  let parts = framesAround.get(notification);
  if (parts === undefined) {
    const text = formatStreamEvent({ message: tagNotification(notification, PLACEHOLDER) });
    const at = text.indexOf(PLACEHOLDER_JSON);
    parts = at >= 0 && text.indexOf(PLACEHOLDER_JSON, at + 1) < 0 ? [text.slice(0, at), text.slice(at + PLACEHOLDER_JSON.length)] : null;
    framesAround.set(notification, parts);
  }
  if (parts === null) return formatStreamEvent({ message: tagNotification(notification, subscriptionId) });
  return parts[0] + JSON.stringify(subscriptionId) + parts[1];
}
