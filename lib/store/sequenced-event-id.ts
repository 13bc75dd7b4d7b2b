/**
 * The event id format of the built-in stores: `<streamId>#<seq>`, with `seq` from one counter for the whole store.
 * The stream is everything before the last `#`, so ids decode back to their stream without any lookup.
 */
const SEPARATOR = '#';

export function formatEventId(streamId: string, seq: number): string {
  return `${streamId}${SEPARATOR}${seq}`;
}

/** The stream and seq of an id, or undefined when it is not in this format. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const at = eventId.lastIndexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const seqText = eventId.slice(at + 1);
  if (!/^\d{1,15}$/.test(seqText)) return undefined;
  return { streamId: eventId.slice(0, at), seq: Number(seqText) };
}

/** Index of the first entry with a seq greater than `seq`, in entries sorted by seq (binary search). */
export function firstAfter(entries: ReadonlyArray<{ seq: number }>, seq: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (entries[mid].seq <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}
