import type { IncomingMessage } from 'node:http';

/**
 * A header's value as one string (Node joins repeated headers), or undefined when absent or empty:
 * `headerText(req.headers['mcp-session-id'])`. Read a header by its literal name where it is known: one load site
 * that reads many names (as `header` does) is megamorphic in V8, a hash-table probe per read (reading them here by
 * name took 790 machine instructions off a 2026-07-28 call: docs/benchmarks.md).
 */
export function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text.length === 0 ? undefined : text;
}

/** A header by a name known only at run time (the standard headers a tool mirrors), as `headerText` gives it. */
export function header(req: IncomingMessage, name: string): string | undefined {
  return headerText(req.headers[name]);
}

/** `Accept` lists both `application/json` and `text/event-stream` (wildcards are not enough: the spec says both). */
export function acceptsJsonAndSse(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
}

export function acceptsSse(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('text/event-stream');
}

/** `application/json`, with or without parameters such as `charset=utf-8`. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  if (contentType === 'application/json') return true; // what clients send: no split, trim or lower-casing
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json';
}

/** Session ids are visible ASCII (0x21-0x7E), as the spec requires of the ids we mint. */
export function isValidSessionId(id: string): boolean {
  return /^[\x21-\x7E]{1,256}$/.test(id);
}
