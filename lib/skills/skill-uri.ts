import { SKILL_URI_SCHEME } from './skill-constants.js';

/** Characters kept as they are in a `skill://` path segment: RFC 3986 unreserved plus sub-delims. */
const KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=]/;

/** One path segment percent-encoded for a `skill://` URI (UTF-8; `:` and `@` too, as the first one is the authority). */
export function encodeSegment(segment: string): string {
  let encoded = '';
  for (const char of segment) encoded += KEPT.test(char) ? char : encodeURIComponent(char);
  return encoded;
}

/** The `skill://` URI of a path made of decoded segments, e.g. `['acme', 'billing', 'SKILL.md']`. */
export function skillUri(segments: readonly string[]): string {
  return SKILL_URI_SCHEME + segments.map(encodeSegment).join('/');
}

/** A segment no file or folder of a skill can have: it would step out of, or stay in, its directory. */
function badSegment(segment: string): string | undefined {
  if (segment === '') return 'an empty path segment';
  if (segment === '.' || segment === '..') return `a "${segment}" path segment`;
  if (segment.includes('/') || segment.includes('\\')) return 'an encoded slash or backslash in a path segment';
  if (segment.includes('\0')) return 'a NUL character';
  return undefined;
}

/**
 * The decoded path segments of a `skill://` URI exactly as a client sent it, or the reason it cannot name a skill
 * file or folder: no query or fragment, no empty, `.` or `..` segment (encoded or not), no encoded slash,
 * backslash or NUL, valid percent-encoding. Nothing is normalised, so no spelling reaches outside a skill.
 */
export function parseSkillUri(uri: string): { segments: string[] } | { invalid: string } {
  if (!uri.startsWith(SKILL_URI_SCHEME)) return { invalid: `it does not start with ${SKILL_URI_SCHEME}` };
  const rest = uri.slice(SKILL_URI_SCHEME.length);
  if (/[?#]/.test(rest)) return { invalid: 'skill file URIs have no query or fragment' };
  const segments: string[] = [];
  for (const raw of rest.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { invalid: 'it has an invalid percent-encoding' };
    }
    const problem = badSegment(segment);
    if (problem) return { invalid: `it has ${problem}` };
    segments.push(segment);
  }
  return { segments };
}

/** Opaque page cursors: base64url of the key of the last item of the previous page. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return encodeCursor(key) === cursor ? key : undefined;
}
