import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  mcpMiddleware,
  protectedResourceMetadataRouter,
  requireBearerAuth,
  type OAuthTokenVerifier,
} from 'mcp-express';
import { closeHttp } from '../basic/server';
import { startLocalAuthorizationServer } from './authorization-server';
import { createJwtVerifier } from './jwt-verifier';

/** The scopes this server understands: every call needs `mcp:tools`; `admin_report` also needs `mcp:admin`. */
export const SCOPES = { tools: 'mcp:tools', admin: 'mcp:admin' } as const;

/** The example's tools: one for any authenticated client, one that needs an extra scope (step-up). */
export function createOAuthMcpServer(): McpServer {
  const server = new McpServer({ name: 'oauth-example', version: '1.0.0' });
  server.tool(
    'whoami',
    { description: 'Tells who the access token belongs to and what it grants' },
    (_args, ctx) => ({
      content: [{ type: 'text', text: `client ${ctx.authInfo?.clientId} with scopes ${ctx.authInfo?.scopes.join(' ')}` }],
      structuredContent: { clientId: ctx.authInfo?.clientId ?? null, scopes: ctx.authInfo?.scopes ?? [] },
    }),
  );
  server.tool(
    'admin_report',
    { description: 'An admin-only report', inputSchema: { topic: z.string().optional() }, requiredScopes: [SCOPES.admin] },
    ({ topic }) => ({ content: [{ type: 'text', text: `admin report on ${topic ?? 'everything'}: all systems nominal` }] }),
  );
  return server;
}

/**
 * The Express app of a protected MCP server: RFC 9728 metadata (public), then bearer auth, then MCP. `mcpUrl` is
 * the URL clients use; `issuer` the authorization server whose tokens are accepted.
 */
export function createOAuthApp(options: { mcpUrl: string; issuer: string; verifier: OAuthTokenVerifier }): { app: express.Express; close(): Promise<void> } {
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(options.mcpUrl);
  const mcp = mcpMiddleware({ server: createOAuthMcpServer() });
  const app = express();
  app.use(
    protectedResourceMetadataRouter({
      resourceServerUrl: options.mcpUrl,
      authorizationServers: [options.issuer],
      scopesSupported: [SCOPES.tools, SCOPES.admin],
      resourceName: 'mcp-express OAuth example',
    }),
  );
  app.use('/mcp', requireBearerAuth({ verifier: options.verifier, requiredScopes: [SCOPES.tools], resourceMetadataUrl }));
  app.use(mcp);
  return { app, close: () => mcp.close() };
}

export interface RunningOAuthExample {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  mcpUrl: string;
  /** The local authorization server's issuer. */
  issuer: string;
  close(): Promise<void>;
}

/**
 * Starts the whole example on 127.0.0.1 (or `host`): the local authorization server on `authPort` and the MCP
 * server on `port` (0 picks free ports).
 */
export async function startOAuthExample(options: { port?: number; authPort?: number; host?: string } = {}): Promise<RunningOAuthExample> {
  const host = options.host ?? '127.0.0.1';
  const authorizationServer = await startLocalAuthorizationServer(options.authPort ?? 0, host);
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, host, resolve));
  const mcpUrl = `http://${host}:${(http.address() as AddressInfo).port}/mcp`;
  const verifier = createJwtVerifier({ issuer: authorizationServer.issuer, audience: mcpUrl, jwksUrl: authorizationServer.jwksUrl });
  const { app, close } = createOAuthApp({ mcpUrl, issuer: authorizationServer.issuer, verifier });
  http.on('request', app);
  return {
    mcpUrl,
    issuer: authorizationServer.issuer,
    async close() {
      await close();
      await closeHttp(http);
      await authorizationServer.stop();
    },
  };
}
