// Compiled by spec/package/packed-tarball.test.ts against the installed tarball twice (as this file against the ESM
// declarations, and copied to consumer.cts against the CommonJS ones), with strict,
// exactOptionalPropertyTypes and skipLibCheck: false. Each @ts-expect-error is a type the package must reject.
import express from 'express';
import { z } from 'zod';
import {
  LOOPBACK_HOSTS,
  McpServer,
  mcpMiddleware,
  requireBearerAuth,
  type AuthInfo,
  type McpMiddlewareOptions,
  type OAuthTokenVerifier,
} from 'mcp-express';
import { RedisEventStore } from 'mcp-express/redis';
import { describeEventStoreContract } from 'mcp-express/testing';

const server = new McpServer({ name: 'consumer', version: '1.0.0' });

server.tool(
  'weather',
  { description: 'Weather', inputSchema: { city: z.string() }, outputSchema: { celsius: z.number() } },
  ({ city }) => ({ content: [{ type: 'text', text: city }], structuredContent: { celsius: 21 } }),
);
server.tool(
  'wrong_output',
  { inputSchema: { city: z.string() }, outputSchema: { celsius: z.number() } },
  // @ts-expect-error structuredContent is typed from outputSchema: celsius is a number
  () => ({ content: [], structuredContent: { celsius: 'warm' } }),
);
server.tool('no_output', { description: 'No output schema' }, () => ({ content: [], structuredContent: { anything: true } }));

server.resourceTemplate('file', 'file:///{+path}{#part}', { description: 'A file' }, (uri, variables) => {
  const path: string = variables.path;
  const part: string = variables.part;
  // @ts-expect-error template variables are typed: the template has no "name"
  void variables.name;
  return { contents: [{ uri: uri.href, text: path + part }] };
});

const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    return { token, clientId: 'client', scopes: [] };
  },
};
const options: McpMiddlewareOptions = {
  server,
  allowedHosts: [...LOOPBACK_HOSTS, 'mcp.example.com'],
  cors: { origins: ['https://app.example.com'] },
};
const mcp = mcpMiddleware(options);
const app = express();
app.use(mcp.cors);
app.use(express.json({ limit: '4mb' }));
app.use('/mcp', requireBearerAuth({ verifier }));
app.use(mcp, mcp.errorHandler);
app.get('/whoami', (req, res) => {
  const auth: AuthInfo | undefined = req.auth; // Express's Request knows req.auth: no cast
  res.json({ clientId: auth?.clientId ?? null });
});

export { app, describeEventStoreContract, RedisEventStore };
