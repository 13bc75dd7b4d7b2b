/**
 * Errors a token verifier throws to refuse a token. `requireBearerAuth` turns them into the RFC 6750 answers:
 * `InvalidTokenError` → 401 `invalid_token`, `InsufficientScopeError` → 403 `insufficient_scope`.
 */

/** The token is expired, revoked, malformed, not for this resource or otherwise refused: 401 `invalid_token`. */
export class InvalidTokenError extends Error {
  readonly errorCode = 'invalid_token';
  constructor(message = 'The access token is invalid') {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** The token is valid but lacks a scope the request needs: 403 `insufficient_scope`. */
export class InsufficientScopeError extends Error {
  readonly errorCode = 'insufficient_scope';
  constructor(message = 'The access token lacks a scope this request needs') {
    super(message);
    this.name = 'InsufficientScopeError';
  }
}
