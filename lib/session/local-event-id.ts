/**
 * The event ids a session mints itself (no EventStore): `<incarnation>.<index>/<seq>`. The incarnation (8 hex
 * digits, random per session object) keeps a restored copy from reusing an earlier copy's ids; the index names
 * the stream within the session (0 is the standalone GET stream); seq counts its events. With an EventStore the
 * same `<incarnation>.<index>` is the tail of the stream id (`<sessionId>/<incarnation>.<index>`).
 */

export interface LocalStreamKey {
  incarnation: string;
  index: number;
}

export interface LocalEventPosition extends LocalStreamKey {
  seq: number;
}

const STREAM_KEY = /^([0-9a-f]{8})\.(\d{1,9})$/;
const EVENT_ID = /^([0-9a-f]{8})\.(\d{1,9})\/(\d{1,15})$/;

/** `<incarnation>.<index>`: a stream's name within its session. */
export function formatLocalStreamKey(incarnation: string, index: number): string {
  return `${incarnation}.${index}`;
}

/** `<incarnation>.<index>/<seq>`. */
export function formatLocalEventId(streamKey: string, seq: number): string {
  return `${streamKey}/${seq}`;
}

export function parseLocalStreamKey(key: string): LocalStreamKey | undefined {
  const match = STREAM_KEY.exec(key);
  return match ? { incarnation: match[1], index: Number(match[2]) } : undefined;
}

export function parseLocalEventId(eventId: string): LocalEventPosition | undefined {
  const match = EVENT_ID.exec(eventId);
  return match ? { incarnation: match[1], index: Number(match[2]), seq: Number(match[3]) } : undefined;
}

/** `<incarnation>-<n>`: the ids of the requests a session sends its client (elicitation, sampling, roots). */
export function formatOutgoingRequestId(incarnation: string, n: number): string {
  return `${incarnation}-${n}`;
}

const OUTGOING_REQUEST_ID = /^[0-9a-f]{8}-\d{1,15}$/;

/** True for an id this server could have given a request to a client (so a copy of the session may be waiting on it). */
export function isOutgoingRequestId(id: unknown): boolean {
  return typeof id === 'string' && OUTGOING_REQUEST_ID.test(id);
}
