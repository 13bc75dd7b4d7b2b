import type { ServerResponse } from 'node:http';

/** The parts of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  /** `invalid_request`, `invalid_token` or `insufficient_scope`; none when the request carried no credentials. */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  errorDescription?: string;
  /** Scopes the client should ask for. */
  scopes?: readonly string[];
  /** URL of the protected resource metadata (RFC 9728), so clients can discover the authorization server. */
  resourceMetadataUrl?: string;
}

/**
 * RFC 6750 allows only %x20-21 / %x23-5B / %x5D-7E in quoted values: no quote, no backslash, no control or
 * non-ASCII character. Anything else is replaced, so a message can never break the header.
 */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?')}"`;
}

/** The `WWW-Authenticate` header value of a Bearer challenge. */
export function formatBearerChallenge(challenge: BearerChallenge): string {
  const parts: string[] = [];
  if (challenge.error) parts.push(`error=${quoted(challenge.error)}`);
  if (challenge.errorDescription) parts.push(`error_description=${quoted(challenge.errorDescription)}`);
  if (challenge.scopes && challenge.scopes.length > 0) parts.push(`scope=${quoted(challenge.scopes.join(' '))}`);
  if (challenge.resourceMetadataUrl) parts.push(`resource_metadata=${quoted(challenge.resourceMetadataUrl)}`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

/** HTTP status of a challenge: 400 for a malformed request, 403 for missing scopes, 401 otherwise (RFC 6750 §3.1). */
export function statusOfChallenge(challenge: BearerChallenge): 400 | 401 | 403 {
  if (challenge.error === 'invalid_request') return 400;
  if (challenge.error === 'insufficient_scope') return 403;
  return 401;
}

/** Sends a challenge with a JSON body (the OAuth error object, or a JSON-RPC error on the MCP endpoint). */
export function sendChallenge(res: ServerResponse, challenge: BearerChallenge, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(statusOfChallenge(challenge), {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'WWW-Authenticate': formatBearerChallenge(challenge),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** The scopes of `required` that `granted` lacks, in the order `required` names them. */
export function missingScopes(granted: readonly string[] | undefined, required: readonly string[]): string[] {
  if (required.length === 0) return [];
  const have = new Set(Array.isArray(granted) ? granted : []);
  return required.filter((scope) => !have.has(scope));
}
