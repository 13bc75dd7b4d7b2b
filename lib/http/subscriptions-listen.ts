import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.js';
import type { ServerEvent } from '../server/mcp-server.js';
import { principalTag } from '../server/request-state.js';
import { detailedTask } from '../tasks/task-service.js';
import { isTerminalStatus, type TaskRecord } from '../tasks/task-store.js';
import type { StatelessClient } from '../session/stateless-client.js';
import type { ResolvedOptions } from './options.js';
import { sendError } from './respond.js';
import { onResponseClose } from './response-close.js';
import { listenFrame } from './listen-frame.js';
import { formatStreamEvent } from './sse-format.js';
import { SSE_HEADERS } from './stream-writer.js';

/** What a client may opt in to on `subscriptions/listen`. */
interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: ids of the caller's tasks whose status changes come as `notifications/tasks`. */
  taskIds?: string[];
}

/**
 * `subscriptions/listen` (2026-07-28): a long-lived SSE response that carries the opted-in list_changed and
 * resource-updated notifications, and `notifications/tasks` for the caller's tasks it names, each tagged with the
 * subscription id (the listen request's id). It starts with an acknowledgement naming what is honoured and ends
 * with a `complete` result when the server shuts down.
 */
export async function serveListen(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, request: JsonRpcRequest, _client: StatelessClient): Promise<void> {
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
    const tooLarge = filterTooLarge(o, 'resourceSubscriptions', uris, 'URIs');
    if (tooLarge) return sendError(res, 400, ErrorCode.InvalidParams, tooLarge, request.id);
    honoured.resourceSubscriptions = uris;
    subscribed = new Set(uris);
  }
  const tasks = o.server.tasks;
  let watchedTasks: ReadonlySet<string> | undefined;
  let owner: string | undefined;
  let alreadyEnded: TaskRecord[] = [];
  if (Array.isArray(requested.taskIds) && tasks) {
    const ids = [...new Set(requested.taskIds.filter((id) => typeof id === 'string' && id.length > 0))];
    // Bounded like resourceSubscriptions (each id is also one store read).
    const tooLarge = filterTooLarge(o, 'taskIds', ids, 'ids');
    if (tooLarge) return sendError(res, 400, ErrorCode.InvalidParams, tooLarge, request.id);
    owner = principalTag(o.principalOf(req));
    // Only the caller's own tasks: unknown ids, expired tasks and other principals' tasks are left out alike.
    const found = await Promise.all(
      ids.map((id) =>
        tasks.store.get(id).catch((error: unknown) => {
          o.onError(error);
          return undefined;
        }),
      ),
    );
    honoured.taskIds = ids.filter((_id, index) => found[index]?.owner === owner);
    watchedTasks = new Set(honoured.taskIds);
    alreadyEnded = found.filter((task): task is TaskRecord => task !== undefined && task.owner === owner && isTerminalStatus(task.status));
    if (res.writableEnded || res.destroyed) return;
  }
  const subscriptionId = request.id;
  const tracked = o.keepAlive.track(res);
  const write = (notification: JsonRpcNotification) => {
    if (res.writableEnded || res.destroyed) return;
    // A listener that does not read: rather than buffer without end, its stream ends; the client listens again.
    if (res.writableLength > o.maxBufferedBytes) {
      res.destroy();
      return;
    }
    res.write(listenFrame(notification, subscriptionId));
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
      default:
        // Events meant for one session (task status of 2025-11-25 tasks) are never listened to.
        return false;
    }
  };
  const stopListening = o.serverEvents.subscribe((event) => {
    if (wants(event)) write(event.notification);
  });
  const stopWatchingTasks =
    watchedTasks && watchedTasks.size > 0
      ? o.taskEvents.subscribe((task) => {
          if (!watchedTasks.has(task.taskId) || task.owner !== owner) return;
          write({ jsonrpc: '2.0', method: 'notifications/tasks', params: detailedTask(task) });
        })
      : undefined;
  // A task that ended before the stream opened will not change again: its final state comes at once.
  for (const task of alreadyEnded) write({ jsonrpc: '2.0', method: 'notifications/tasks', params: detailedTask(task) });
  const cleanup = () => {
    stopListening();
    stopWatchingTasks?.();
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

/** Why a listen filter list is over `maxListenFilterUris` / `maxListenFilterBytes`, or undefined when it is not. */
function filterTooLarge(o: ResolvedOptions, field: string, entries: readonly string[], noun: string): string | undefined {
  const length = entries.reduce((total, entry) => total + entry.length, 0);
  if (entries.length <= o.listens.maxFilterUris && length <= o.listens.maxFilterBytes) return undefined;
  return `Invalid params: notifications.${field} names ${entries.length} ${noun} of ${length} characters in all; this server takes at most ${o.listens.maxFilterUris} ${noun} (option maxListenFilterUris) of ${o.listens.maxFilterBytes} characters (option maxListenFilterBytes)`;
}
