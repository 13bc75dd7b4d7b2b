import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.js';
import type { ServerEvent } from '../server/mcp-server.js';
import type { StatelessClient } from '../session/stateless-client.js';
import type { ResolvedOptions } from './options.js';
import { sendError } from './respond.js';
import { onResponseClose } from './response-close.js';
import { formatStreamEvent } from './sse-format.js';
import { SSE_HEADERS } from './stream-writer.js';

/** What a client may opt in to on `subscriptions/listen`. */
interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/**
 * `subscriptions/listen` (2026-07-28): a long-lived SSE response that carries the opted-in list_changed and
 * resource-updated notifications, each tagged with the subscription id (the listen request's id). It starts with
 * an acknowledgement naming what is honoured and ends with a `complete` result when the server shuts down.
 */
export function serveListen(_req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, request: JsonRpcRequest, _client: StatelessClient): void {
  if (o.listens.open.size >= o.listens.max) {
    return sendError(res, 503, ErrorCode.ServerError, `Too many open subscriptions (maxSubscriptions is ${o.listens.max}); try again later`, request.id, undefined, { 'Retry-After': '5' });
  }
  const requested = (request.params?.notifications ?? {}) as ListenFilter;
  const capabilities = o.server.capabilities();
  const honoured: ListenFilter = {};
  if (requested.toolsListChanged === true && capabilities.tools?.listChanged) honoured.toolsListChanged = true;
  if (requested.promptsListChanged === true && capabilities.prompts?.listChanged) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged === true && capabilities.resources?.listChanged) honoured.resourcesListChanged = true;
  let subscribed: ReadonlySet<string> | undefined;
  if (Array.isArray(requested.resourceSubscriptions) && capabilities.resources?.subscribe) {
    const uris = requested.resourceSubscriptions.filter((uri) => typeof uri === 'string');
    // The filter lives as long as the stream: bounded in count and size, like a session's subscriptions.
    const length = uris.reduce((total, uri) => total + uri.length, 0);
    if (uris.length > o.listens.maxFilterUris || length > o.listens.maxFilterBytes) {
      return sendError(
        res,
        400,
        ErrorCode.InvalidParams,
        `Invalid params: notifications.resourceSubscriptions names ${uris.length} URIs of ${length} characters in all; this server takes at most ${o.listens.maxFilterUris} URIs (option maxListenFilterUris) of ${o.listens.maxFilterBytes} characters (option maxListenFilterBytes)`,
        request.id,
      );
    }
    honoured.resourceSubscriptions = uris;
    subscribed = new Set(uris);
  }
  const subscriptionId = request.id;
  const tag = (notification: JsonRpcNotification): JsonRpcNotification => ({
    jsonrpc: '2.0',
    method: notification.method,
    params: { ...notification.params, _meta: { ...(notification.params?._meta as object | undefined), [META_SUBSCRIPTION_ID]: subscriptionId } },
  });
  const tracked = o.keepAlive.track(res);
  const write = (notification: JsonRpcNotification) => {
    if (res.writableEnded || res.destroyed) return;
    // A listener that does not read: rather than buffer without end, its stream ends; the client listens again.
    if (res.writableLength > o.maxBufferedBytes) {
      res.destroy();
      return;
    }
    res.write(formatStreamEvent({ message: tag(notification) }));
    if (tracked) tracked.lastWrite = Date.now();
  };
  res.writeHead(200, SSE_HEADERS);
  write({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: honoured } });

  const wants = (event: ServerEvent): boolean => {
    switch (event.kind) {
      case 'toolsListChanged':
      case 'promptsListChanged':
      case 'resourcesListChanged':
        return honoured[event.kind] === true;
      case 'resourceUpdated':
        return subscribed?.has(event.resourceUri!) ?? false;
    }
  };
  const stopListening = o.serverEvents.subscribe((event) => {
    if (wants(event)) write(event.notification);
  });
  const cleanup = () => {
    stopListening();
    o.keepAlive.untrack(tracked);
    o.listens.open.delete(end);
  };
  // Graceful completion: the final result, then the end of the stream.
  const end = () => {
    cleanup();
    if (res.writableEnded) return;
    res.end(formatStreamEvent({ message: { jsonrpc: '2.0', id: subscriptionId, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: subscriptionId } } } }));
  };
  o.listens.open.add(end);
  // Frees the slot at once when the client already left (e.g. while an upstream middleware awaited).
  onResponseClose(res, cleanup);
}
