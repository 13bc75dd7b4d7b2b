import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { InvalidTokenError, type AuthInfo, type OAuthTokenVerifier } from 'mcp-express';

export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier (the `iss` of its tokens). */
  issuer: string;
  /** This server's resource URL (the MCP endpoint): tokens must name it in `aud` (RFC 8707 / RFC 9068). */
  audience: string;
  /** Where the authorization server publishes its signing keys. */
  jwksUrl: string;
}

/**
 * A token verifier for JWT access tokens (RFC 9068) signed by an authorization server: the signature against the
 * server's JWKS (fetched and cached by jose), the issuer, the audience and the expiry. jose's refusals become
 * `InvalidTokenError`s, so clients get 401 `invalid_token` with the reason.
 */
export function createJwtVerifier(options: JwtVerifierOptions): OAuthTokenVerifier {
  const keys = createRemoteJWKSet(new URL(options.jwksUrl));
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, { issuer: options.issuer, audience: options.audience }));
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new InvalidTokenError('The access token has expired');
        if (error instanceof errors.JOSEError) throw new InvalidTokenError(`The access token is invalid: ${error.message}`);
        throw error;
      }
      const clientId = payload.client_id ?? payload.azp ?? payload.sub;
      if (typeof clientId !== 'string') throw new InvalidTokenError('The access token names no client (client_id, azp or sub)');
      return {
        token,
        clientId,
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
        expiresAt: payload.exp,
        resource: new URL(options.audience),
        extra: { subject: payload.sub },
      };
    },
  };
}
