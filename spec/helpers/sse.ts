/** One parsed SSE event. `data` is undefined for comment-only frames. */
export interface ParsedSseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data?: string;
}

/** Parses an SSE body into events (keep-alive comments are skipped). */
export function parseSse(body: string): ParsedSseEvent[] {
  const events: ParsedSseEvent[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const event: ParsedSseEvent = {};
    let hasField = false;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      hasField = true;
      if (field === 'id') event.id = value;
      else if (field === 'retry') event.retry = Number(value);
      else if (field === 'event') event.event = value;
      else if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
    }
    if (hasField) events.push(event);
  }
  return events;
}

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages(body: string): Array<Record<string, any>> {
  return parseSse(body)
    .filter((event) => event.data !== undefined && event.data !== '')
    .map((event) => JSON.parse(event.data!));
}
