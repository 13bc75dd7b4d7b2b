import { isSafeSseField, type SseEvent } from '../store/sse-event.js';

/** One SSE frame. Multi-line data becomes one `data:` line per line, as the SSE spec requires. */
export function formatSseFrame(fields: { event?: string; id?: string; retry?: number; data: string }): string {
  let frame = '';
  if (fields.event !== undefined && isSafeSseField(fields.event)) frame += `event: ${fields.event}\n`;
  if (fields.id !== undefined && isSafeSseField(fields.id)) frame += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) frame += `retry: ${fields.retry}\n`;
  if (fields.data.includes('\n') || fields.data.includes('\r')) {
    for (const line of fields.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  } else {
    frame += `data: ${fields.data}\n`;
  }
  return frame + '\n';
}

/**
 * The frame of a stream event: a message (`event: message`; its JSON text when the session layer kept only that),
 * a priming event (an id and a retry, empty data), or a bare retry hint (no id: a frame without data, which no
 * client dispatches as an event, so clients older than 2025-11-25 are not confused by it).
 */
export function formatStreamEvent(event: SseEvent): string {
  // JSON.stringify never emits raw line breaks, so the single-line fast path below is always safe. Ids come from
  // EventStores (user code): the session layer checks them, and an unsafe one that got this far is dropped here.
  const id = event.id !== undefined && isSafeSseField(event.id) ? event.id : undefined;
  if (event.message === undefined && event.data === undefined) {
    if (id === undefined) return event.retry === undefined ? KEEP_ALIVE_FRAME : `retry: ${event.retry}\n\n`;
    return event.retry === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${event.retry}\ndata: \n\n`;
  }
  const data = event.data ?? JSON.stringify(event.message);
  return id === undefined ? `event: message\ndata: ${data}\n\n` : `event: message\nid: ${id}\ndata: ${data}\n\n`;
}

/** A comment line: ignored by clients, keeps proxies from closing an idle connection. */
export const KEEP_ALIVE_FRAME = ':\n\n';
