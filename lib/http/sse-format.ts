import type { SseEvent } from '../session/sse-event.js';

/** One SSE frame. Multi-line data becomes one `data:` line per line, as the SSE spec requires. */
export function formatSseFrame(fields: { event?: string; id?: string; retry?: number; data: string }): string {
  let frame = '';
  if (fields.event !== undefined) frame += `event: ${fields.event}\n`;
  if (fields.id !== undefined) frame += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) frame += `retry: ${fields.retry}\n`;
  if (fields.data.includes('\n') || fields.data.includes('\r')) {
    for (const line of fields.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  } else {
    frame += `data: ${fields.data}\n`;
  }
  return frame + '\n';
}

/** The frame of a stream event: a message (`event: message`), or a priming/retry event with empty data. */
export function formatStreamEvent(event: SseEvent): string {
  // JSON.stringify never emits raw line breaks, so the single-line fast path below is always safe.
  if (event.message === undefined) {
    let frame = '';
    if (event.id !== undefined) frame += `id: ${event.id}\n`;
    if (event.retry !== undefined) frame += `retry: ${event.retry}\n`;
    return frame + 'data: \n\n';
  }
  const data = event.data ?? JSON.stringify(event.message);
  return event.id === undefined ? `event: message\ndata: ${data}\n\n` : `event: message\nid: ${event.id}\ndata: ${data}\n\n`;
}

/** A comment line: ignored by clients, keeps proxies from closing an idle connection. */
export const KEEP_ALIVE_FRAME = ':\n\n';
