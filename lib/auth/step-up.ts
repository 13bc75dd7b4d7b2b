import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { AuthInfo } from '../protocol/types.js';
import type { McpServer } from '../server/mcp-server.js';
import { advertisedResourceMetadataUrl, union } from './bearer-auth.js';
import { missingScopes, sendChallenge, type BearerChallenge } from './www-authenticate.js';

/**
 * Step-up authorization (MCP authorization, "Scope challenge handling"): when the tool, prompt or resource a
 * request names has `requiredScopes` the caller's token lacks, answers HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"` and returns true, before
 * any stream starts; the client gets a token with those scopes and retries. A request with no `req.auth` at all
 * gets 401 with the same `scope` and `resource_metadata`. Returns false when the request may go on.
 *
 * The challenge's `scope` is the token's scopes plus the missing ones, so the new token loses nothing.
 */
export function refuseWithoutRequiredScopes(
  res: ServerResponse,
  options: { server: McpServer; resourceMetadataUrl?: string },
  info: { authInfo?: AuthInfo; httpRequest?: unknown },
  request: JsonRpcRequest,
): boolean {
  const required = options.server.requiredScopesFor(request.method, request.params);
  if (required === undefined) return false;
  const auth = info.authInfo;
  const missing = missingScopes(auth?.scopes, required);
  if (missing.length === 0) return false;
  const target = `${request.method} ${String(request.method === 'resources/read' ? request.params?.uri : request.params?.name).slice(0, 200)}`;
  const challenge: BearerChallenge = {
    resourceMetadataUrl: options.resourceMetadataUrl ?? advertisedResourceMetadataUrl(info.httpRequest),
    scopes: union(Array.isArray(auth?.scopes) ? auth.scopes : [], required),
  };
  let message: string;
  if (auth === undefined) {
    message = `Unauthorized: ${target} needs an access token with the scopes ${required.join(' ')}; send Authorization: Bearer <token>`;
    challenge.errorDescription = 'This request needs an access token';
  } else {
    message = `Forbidden: ${target} needs the scopes ${missing.join(' ')}, which the access token lacks; get a token with the scopes named in the WWW-Authenticate header and retry`;
    challenge.error = 'insufficient_scope';
    challenge.errorDescription = `This request needs the scopes ${missing.join(' ')}`;
  }
  sendChallenge(res, challenge, {
    jsonrpc: '2.0',
    id: request.id,
    error: { code: ErrorCode.ServerError, message, data: { requiredScopes: [...required], missingScopes: missing } },
  });
  return true;
}
