/**
 * Redis Cluster hash tags. Redis hashes only the part of a key between the first `{` and the next `}`, so keys that
 * carry the same tag live on one slot, and a transaction or script over them works on a cluster. An id is escaped
 * before it goes between the braces (`%` → `%25`, `{` → `%7B`, `}` → `%7D`): ids of any text, a client's
 * `Last-Event-ID` included, then give one tag per id and never collide.
 */
export function hashTag(id: string): string {
  // An empty tag (`{}`) would hash the whole key: the empty id gets `{%}`, which no escaped id can be.
  if (id.length === 0) return '{%}';
  // Most ids (every id the session managers make) need no escaping: no replace, no callback per request.
  if (!NEEDS_ESCAPE.test(id)) return `{${id}}`;
  return `{${id.replace(/[%{}]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)}}`;
}

const NEEDS_ESCAPE = /[%{}]/;

/** Checks a store's `keyPrefix`: a brace in it would take the place of the hash tag that follows it. */
export function checkKeyPrefix(keyPrefix: string): string {
  if (/[{}]/.test(keyPrefix)) throw new RangeError(`keyPrefix must not contain "{" or "}" (a Redis Cluster hash tag follows it), got ${JSON.stringify(keyPrefix)}`);
  return keyPrefix;
}
