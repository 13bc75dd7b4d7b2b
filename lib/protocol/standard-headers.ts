/**
 * SEP-2243 standard headers of 2026-07-28 requests: `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` mirror the body
 * so that proxies can route without parsing it. The server checks that they agree with the body (which stays
 * authoritative).
 */

import { methodSpec } from './methods.js';
import { describeValue } from './safe-text.js';

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes a header value that may use the `=?base64?…?=` sentinel; undefined when the encoding is invalid. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  // Only a value wrapped in the whole sentinel is encoded; anything else (even "=?base64?abc") is literal.
  if (!value.startsWith('=?')) return value;
  const match = SENTINEL.exec(value);
  if (!match) return value;
  if (!BASE64.test(match[1])) return undefined;
  const bytes = Buffer.from(match[1], 'base64');
  const text = bytes.toString('utf8');
  // Reject bytes that are not valid UTF-8 (they would not survive a round trip).
  if (!Buffer.from(text, 'utf8').equals(bytes)) return undefined;
  return text;
}

/** The header text of a primitive argument value, as a client would send it. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function sameValue(headerText: string, bodyValue: unknown): boolean {
  if (typeof bodyValue === 'number') {
    // Numerically (so "42.0" matches 42), but only plain decimal text: no hex, no exponent, no blanks.
    return DECIMAL.test(headerText) && Number(headerText) === bodyValue;
  }
  return primitiveText(bodyValue) === headerText;
}

export type HeaderLookup = (lowerCaseName: string) => string | undefined;

/**
 * Checks the standard headers of a request against its body. Returns undefined when they agree, or the reason
 * for a -32020 HeaderMismatch. `paramHeaders` maps argument names to their `x-mcp-header` names (tools/call).
 */
export function checkStandardHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
  header: HeaderLookup,
  paramHeaders: ReadonlyMap<string, string> | undefined,
): string | undefined {
  const methodHeader = header('mcp-method');
  if (methodHeader === undefined) return 'missing required Mcp-Method header';
  // Compared as sent first: a header without surrounding blanks (what clients send) is not trimmed.
  if (methodHeader !== method && methodHeader.trim() !== method) return `Mcp-Method header (${methodHeader.trim()}) does not match the body's method (${method})`;
  const nameField = methodSpec(method)?.nameParam;
  if (nameField !== undefined) {
    const raw = header('mcp-name');
    if (raw === undefined) return `missing required Mcp-Name header for ${method}`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return 'Mcp-Name header has an invalid =?base64?…?= encoding';
    if (decoded !== params?.[nameField]) return `Mcp-Name header (${describeValue(decoded)}) does not match params.${nameField} (${describeValue(params?.[nameField])})`;
  }
  if (paramHeaders && paramHeaders.size > 0) {
    const args = (params?.arguments ?? {}) as Record<string, unknown>;
    for (const [argument, headerName] of paramHeaders) {
      const value = args[argument];
      const raw = header(`mcp-param-${headerName.toLowerCase()}`);
      if (value === undefined || value === null) continue;
      if (raw === undefined) return `missing Mcp-Param-${headerName} header for argument "${argument}"`;
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined) return `Mcp-Param-${headerName} header has an invalid =?base64?…?= encoding`;
      if (!sameValue(decoded, value)) return `Mcp-Param-${headerName} header does not match argument "${argument}"`;
    }
  }
  return undefined;
}

/** Header values must be visible ASCII or spaces/tabs (RFC 9110 field-value, no obs-text). */
export function hasInvalidHeaderCharacters(value: string): boolean {
  return /[^\t\x20-\x7E]/.test(value);
}
