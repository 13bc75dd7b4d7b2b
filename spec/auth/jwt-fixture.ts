/**
 * Signed JWT access tokens for the auth suites: an RS256 key pair made with jose, a token minter, and a verifier
 * (jose's jwtVerify: signature, issuer, audience, expiry) that maps jose's errors to InvalidTokenError.
 */
import { generateKeyPair, jwtVerify, SignJWT, errors as joseErrors, type CryptoKey, type JWTPayload } from 'jose';
import { InvalidTokenError, type AuthInfo, type OAuthTokenVerifier } from '../../lib/index.js';

export const ISSUER = 'https://auth.example.test';

export interface TokenClaims {
  scope?: string;
  aud?: string | string[];
  clientId?: string;
  /** Seconds from now; negative for an expired token. Defaults to 3600. */
  expiresIn?: number;
  iss?: string;
}

export interface JwtFixture {
  sign(claims?: TokenClaims): Promise<string>;
  /** A token signed by a key the verifier does not trust. */
  signWithOtherKey(claims?: TokenClaims): Promise<string>;
  verifier(audience: string): OAuthTokenVerifier;
}

async function signWith(key: CryptoKey, claims: TokenClaims, defaultAudience: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { client_id: claims.clientId ?? 'client-1' };
  if (claims.scope !== undefined) payload.scope = claims.scope;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? defaultAudience)
    .setSubject(claims.clientId ?? 'client-1')
    .setIssuedAt(now - 60)
    .setExpirationTime(now + (claims.expiresIn ?? 3600))
    .sign(key);
}

/** The AuthInfo of a verified payload. */
export function authInfoOf(token: string, payload: JWTPayload): AuthInfo {
  const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
  return {
    token,
    clientId: String(payload.client_id ?? payload.sub),
    scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
    expiresAt: payload.exp,
    resource: audience ? new URL(audience) : undefined,
  };
}

/** jose's verification failures as the 401 `invalid_token` the middleware sends. */
export function toInvalidToken(error: unknown): never {
  if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('The access token has expired');
  if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError(`The access token is invalid: ${error.message}`);
  throw error;
}

export async function jwtFixture(defaultAudience: string): Promise<JwtFixture> {
  const trusted = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  return {
    sign: (claims = {}) => signWith(trusted.privateKey, claims, defaultAudience),
    signWithOtherKey: (claims = {}) => signWith(other.privateKey, claims, defaultAudience),
    verifier: (audience) => ({
      async verifyAccessToken(token) {
        const { payload } = await jwtVerify(token, trusted.publicKey, { issuer: ISSUER, audience, algorithms: ['RS256'] }).catch(toInvalidToken);
        return authInfoOf(token, payload);
      },
    }),
  };
}
