/**
 * The raw-HTTP side of the failover trials: a fresh session, a `slow_count` call streaming from one instance, and a
 * resume of its stream (GET with Last-Event-ID) on another, read frame by frame over node:http.
 */
import type { JsonRpcMessage } from '../../lib/protocol/jsonrpc.js';
import { clientHeaders, initializeRequest, openLive, type LiveResponse } from '../helpers/http-helpers.js';
import type { SseFrame } from '../helpers/sse.js';

export const VERSION = '2025-11-25';

/** Initializes a session on `port` (and sends notifications/initialized there); returns its id. */
export async function newSession(port: number): Promise<string> {
  const init = await openLive({ port }, { method: 'POST', headers: clientHeaders(VERSION), body: initializeRequest(VERSION, 0), waitForHeaders: false });
  await init.ended;
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize on ${port} failed: ${init.status} ${init.text()}`);
  const initialized = await openLive({ port }, { method: 'POST', headers: clientHeaders(VERSION, sessionId), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await initialized.ended;
  if (initialized.status !== 202) throw new Error(`notifications/initialized on ${port} failed: ${initialized.status} ${initialized.text()}`);
  return sessionId;
}

/** POSTs `slow_count { n, intervalMs }` with a progress token and returns the response while it streams. */
export function startSlowCount(port: number, sessionId: string, id: number, n: number, intervalMs: number): Promise<LiveResponse> {
  return openLive(
    { port },
    {
      method: 'POST',
      headers: clientHeaders(VERSION, sessionId),
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_count', arguments: { n, intervalMs }, _meta: { progressToken: `p${id}` } } },
      waitForHeaders: false,
    },
  );
}

/** GETs the session's stream from `lastEventId` on `port` (a resume) and returns it while it streams. */
export function resume(port: number, sessionId: string, lastEventId: string): Promise<LiveResponse> {
  return openLive({ port }, { method: 'GET', headers: { ...clientHeaders(VERSION, sessionId), Accept: 'text/event-stream', 'Last-Event-ID': lastEventId } });
}

/** The progress values of the progress notifications among `messages`, in order. */
export function progressOf(messages: JsonRpcMessage[]): number[] {
  return messages.flatMap((message) => ('method' in message && message.method === 'notifications/progress' ? [(message.params as { progress: number }).progress] : []));
}

/** The id of the last frame that carried one. */
export function lastIdOf(frames: SseFrame[]): string {
  const id = [...frames].reverse().find((frame) => frame.id !== undefined)?.id;
  if (id === undefined) throw new Error('no SSE frame with an id was received');
  return id;
}

/** The ids of the frames that carried data (events), in order. */
export function eventIdsOf(frames: SseFrame[]): string[] {
  return frames.filter((frame) => frame.data !== undefined && frame.data !== '').map((frame) => frame.id ?? '(no id)');
}

/** 1..n */
export const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** Resolves when `live` has ended; rejects after `ms` (a resume that hangs). */
export async function endedWithin(live: LiveResponse, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      live.ended,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms; received:\n${live.text()}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
