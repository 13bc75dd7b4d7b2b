import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../protocol/types.js';
import { InsufficientScopeError, InvalidTokenError } from './errors.js';
import { missingScopes, sendChallenge, type BearerChallenge } from './www-authenticate.js';

/** Checks access tokens (the official SDK's `OAuthTokenVerifier`): a JWT check, token introspection, a lookup. */
export interface OAuthTokenVerifier {
  /**
   * Returns what the token grants, or throws: `InvalidTokenError` (401 `invalid_token`, its message becomes the
   * `error_description`) for a token you refuse, `InsufficientScopeError` for 403. Any other error also answers
   * 401 `invalid_token`, with a generic description. Check the signature, the issuer, the audience (this
   * server's resource URL) and the expiry here; report `expiresAt` (seconds since the epoch) and the middleware
   * refuses the token once it has passed.
   */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/** Options of `requireBearerAuth` (the official SDK's option names). Only `verifier` is required. */
export interface BearerAuthOptions {
  /** Checks each token. */
  verifier: OAuthTokenVerifier;
  /** Scopes every request must carry; a token without all of them gets 403 `insufficient_scope`. Defaults to `[]`. */
  requiredScopes?: string[];
  /**
   * URL of this server's protected resource metadata (RFC 9728), sent as `resource_metadata` in every challenge so
   * clients find the authorization server; build it with `getOAuthProtectedResourceMetadataUrl(mcpUrl)`.
   * `mcpMiddleware` also uses it for per-tool step-up challenges unless its own `resourceMetadataUrl` is set.
   * Defaults to none (clients then probe the well-known URLs themselves).
   */
  resourceMetadataUrl?: string;
  /**
   * Accept only tokens whose `AuthInfo.resource` names this server (RFC 8707 audience), compared without a
   * fragment and one trailing slash; others get 401 `invalid_token`. Defaults to no check (leave it to the
   * verifier, e.g. jose's `audience`).
   */
  expectedResource?: URL | string;
}

type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };
type NextFunction = (error?: unknown) => void;

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, then a b64token. */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The `resourceMetadataUrl` of the `requireBearerAuth` that authenticated a request, for step-up challenges. */
const metadataUrlOfRequest = new WeakMap<object, string>();

/** @internal The resource metadata URL `requireBearerAuth` advertised for this request, if any. */
export function advertisedResourceMetadataUrl(req: unknown): string | undefined {
  return typeof req === 'object' && req !== null ? metadataUrlOfRequest.get(req) : undefined;
}

/**
 * Express middleware of an OAuth 2.1 resource server: takes the `Authorization: Bearer` token, checks it with
 * `verifier`, and sets `req.auth` (handlers see it as `ctx.authInfo`). A request without a token gets 401 with a
 * `WWW-Authenticate: Bearer resource_metadata="…"` challenge, a malformed header 400 `invalid_request`, a refused
 * or expired token 401 `invalid_token`, a token without `requiredScopes` 403 `insufficient_scope`.
 */
export function requireBearerAuth(options: BearerAuthOptions): (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void {
  if (!options || typeof options.verifier?.verifyAccessToken !== 'function') {
    throw new TypeError('requireBearerAuth({ verifier }) needs a verifier with a verifyAccessToken(token) method that returns the AuthInfo of a valid token.');
  }
  const requiredScopes = [...(options.requiredScopes ?? [])];
  const resourceMetadataUrl = options.resourceMetadataUrl;
  if (resourceMetadataUrl !== undefined && !URL.canParse(resourceMetadataUrl)) {
    throw new TypeError(`resourceMetadataUrl must be an absolute URL, e.g. getOAuthProtectedResourceMetadataUrl('https://api.example.com/mcp') (got ${JSON.stringify(resourceMetadataUrl)}).`);
  }
  const expectedResource = options.expectedResource === undefined ? undefined : comparableResource(options.expectedResource);
  const verifier = options.verifier;

  const refuse = (res: ServerResponse, challenge: BearerChallenge) => {
    const full: BearerChallenge = { resourceMetadataUrl, scopes: requiredScopes, ...challenge };
    const body: Record<string, string> = {};
    if (full.error) body.error = full.error;
    if (full.errorDescription) body.error_description = full.errorDescription;
    sendChallenge(res, full, body);
  };

  return function bearerAuth(req: AuthenticatedRequest, res: ServerResponse, next: NextFunction): void {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') {
      return refuse(res, { errorDescription: 'This endpoint needs an access token: send Authorization: Bearer <token>' });
    }
    if (!/^bearer(\s|$)/i.test(header.trimStart())) {
      const scheme = header.trim().split(/\s/, 1)[0];
      return refuse(res, { errorDescription: `The Authorization header uses the ${scheme.slice(0, 32)} scheme; this endpoint takes Bearer tokens` });
    }
    const match = BEARER_CREDENTIALS.exec(header.trim());
    if (!match) {
      return refuse(res, { error: 'invalid_request', errorDescription: "Malformed Authorization header: expected 'Bearer <token>' with one token of base64url characters" });
    }
    const token = match[1];
    let verified: Promise<AuthInfo>;
    try {
      verified = Promise.resolve(verifier.verifyAccessToken(token));
    } catch (error) {
      verified = Promise.reject(error);
    }
    verified.then(
      (authInfo) => {
        if (!authInfo || typeof authInfo !== 'object' || !Array.isArray(authInfo.scopes)) {
          return next(new TypeError('verifyAccessToken must return an AuthInfo ({ token, clientId, scopes: string[], expiresAt? }) or throw InvalidTokenError.'));
        }
        if (typeof authInfo.expiresAt === 'number' && authInfo.expiresAt < Date.now() / 1000) {
          return refuse(res, { error: 'invalid_token', errorDescription: 'The access token has expired; get a new one' });
        }
        if (expectedResource !== undefined && (authInfo.resource === undefined || comparableResource(authInfo.resource) !== expectedResource)) {
          return refuse(res, { error: 'invalid_token', errorDescription: 'The access token was not issued for this resource' });
        }
        if (missingScopes(authInfo.scopes, requiredScopes).length > 0) {
          return refuse(res, {
            error: 'insufficient_scope',
            errorDescription: `The access token lacks a required scope (${requiredScopes.join(' ')})`,
            scopes: union(authInfo.scopes, requiredScopes),
          });
        }
        req.auth = authInfo;
        if (resourceMetadataUrl !== undefined) metadataUrlOfRequest.set(req, resourceMetadataUrl);
        next();
      },
      (error: unknown) => {
        if (error instanceof InsufficientScopeError) return refuse(res, { error: 'insufficient_scope', errorDescription: error.message });
        const description = error instanceof InvalidTokenError ? error.message : 'The access token is invalid';
        refuse(res, { error: 'invalid_token', errorDescription: description });
      },
    );
  };
}

/** The scopes a client should ask for: what it has plus what it lacks, so a new token does not lose any. */
export function union(granted: readonly string[], required: readonly string[]): string[] {
  return [...new Set([...granted.filter((scope) => typeof scope === 'string'), ...required])];
}

/** A resource URL without its fragment and one trailing slash, for comparison. */
function comparableResource(value: URL | string): string {
  const text = String(value);
  const hash = text.indexOf('#');
  return (hash === -1 ? text : text.slice(0, hash)).replace(/\/$/, '');
}
