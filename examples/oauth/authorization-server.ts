import { OAuth2Server } from 'oauth2-mock-server';

export interface LocalAuthorizationServer {
  /** Its issuer identifier, e.g. `http://127.0.0.1:3001`. */
  issuer: string;
  jwksUrl: string;
  stop(): Promise<void>;
}

/**
 * A local OAuth 2 authorization server for trying the example: oauth2-mock-server, which issues signed JWTs to
 * any client (client_credentials, authorization_code with PKCE…) without checking credentials. For local trials
 * only; in production the verifier points at your real authorization server.
 *
 * Tokens are made to look like a real one's: `aud` is the resource the client asked for (RFC 8707 `resource`
 * parameter), `client_id` the client that asked.
 */
export async function startLocalAuthorizationServer(port = 0, host = '127.0.0.1'): Promise<LocalAuthorizationServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }, req: { headers: Record<string, string | string[] | undefined>; body?: Record<string, unknown> }) => {
    const resource = req.body?.resource;
    if (typeof resource === 'string') token.payload.aud = resource;
    const clientId = basicAuthUser(req.headers.authorization) ?? req.body?.client_id;
    if (typeof clientId === 'string') {
      token.payload.client_id = clientId;
      token.payload.sub ??= clientId;
    }
  });
  await server.start(port, host);
  // oauth2-mock-server names itself http://localhost:<port>; use the address it listens on, as clients do.
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}`;
  server.issuer.url = issuer;
  return { issuer, jwksUrl: `${issuer}/jwks`, stop: () => server.stop() };
}

function basicAuthUser(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decodeURIComponent(decoded.slice(0, colon)) : undefined;
}
