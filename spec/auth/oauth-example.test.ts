/**
 * The `oauth` example end to end: its local authorization server (oauth2-mock-server) and its protected MCP
 * server, driven by the official SDK clients with a client_credentials authProvider. The client is refused
 * (401 + resource_metadata), discovers the authorization server through the protected resource metadata, gets a
 * JWT for this resource, and calls tools; the v2 client also steps up to `mcp:admin` when a tool answers 403
 * insufficient_scope.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, ClientCredentialsProvider as V2ClientCredentialsProvider, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { runOAuthClient } from '../../examples/oauth/client';
import { startOAuthExample, type RunningOAuthExample } from '../../examples/oauth/server';

let example: RunningOAuthExample;

beforeAll(async () => {
  example = await startOAuthExample();
});

afterAll(async () => {
  await example?.close();
});

const metadataUrl = () => example.mcpUrl.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');

interface Exchange {
  method: string;
  url: string;
  status: number;
  authorization?: string;
  wwwAuthenticate?: string | null;
  body?: string;
}

function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    log.push({
      method: init?.method ?? 'GET',
      url: String(input instanceof Request ? input.url : input),
      status: response.status,
      authorization: headers.get('authorization') ?? undefined,
      wwwAuthenticate: response.headers.get('www-authenticate'),
      body: typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined,
    });
    return response;
  };
}

test('SDK v1 client: 401 challenge → discovery → token for this resource → calls', async () => {
  const log: Exchange[] = [];
  const authProvider = new ClientCredentialsProvider({ clientId: 'spec-client', clientSecret: 'spec-secret', expectedIssuer: example.issuer, scope: 'mcp:tools' });
  const client = new Client({ name: 'oauth-spec', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(example.mcpUrl), { authProvider, fetch: recordingFetch(log) });
  try {
    await client.connect(transport);

    // 1. The first POST is refused with a challenge naming the metadata and the scope every call needs.
    expect(log[0]).toMatchObject({ method: 'POST', url: example.mcpUrl, status: 401, authorization: undefined });
    expect(log[0].wwwAuthenticate).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(log[0].wwwAuthenticate).toContain('scope="mcp:tools"');
    // 2. The client reads the protected resource metadata, then the authorization server's metadata.
    const metadataFetch = log.findIndex((exchange) => exchange.url === metadataUrl() && exchange.status === 200);
    const asMetadata = log.findIndex((exchange) => exchange.url.startsWith(example.issuer) && exchange.url.includes('/.well-known/') && exchange.status === 200);
    const tokenRequest = log.findIndex((exchange) => exchange.url === `${example.issuer}/token`);
    expect(metadataFetch).toBeGreaterThan(0);
    expect(asMetadata).toBeGreaterThan(metadataFetch);
    // 3. It asks for a token for this resource (RFC 8707) and sends the same request again with it.
    expect(tokenRequest).toBeGreaterThan(asMetadata);
    const tokenParams = new URLSearchParams(log[tokenRequest].body);
    expect(tokenParams.get('grant_type')).toBe('client_credentials');
    expect(tokenParams.get('resource')).toBe(example.mcpUrl);
    const retried = log[tokenRequest + 1];
    expect(retried).toMatchObject({ method: 'POST', url: example.mcpUrl, status: 200 });
    const claims = decodeJwt(retried.authorization!.replace(/^Bearer /, ''));
    expect(claims).toMatchObject({ iss: example.issuer, aud: example.mcpUrl, scope: 'mcp:tools', client_id: 'spec-client' });

    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.structuredContent).toEqual({ clientId: 'spec-client', scopes: ['mcp:tools'] });

    // 4. admin_report needs mcp:admin: the step-up challenge reaches the client. SDK v1's client_credentials flow
    // asks again for its configured scope only (fetchToken uses clientMetadata.scope), so it gets the same
    // token and gives up; a v1 client configures every scope it needs (see the example's client).
    const before = log.length;
    await expect(client.callTool({ name: 'admin_report', arguments: {} })).rejects.toThrow(/403/);
    // POSTs only: the client's GET stream, opened in the background after connect, may be logged in between.
    const challenged = log.slice(before).find((exchange) => exchange.method === 'POST')!;
    expect(challenged.status).toBe(403);
    expect(challenged.wwwAuthenticate).toBe(
      `Bearer error="insufficient_scope", error_description="This request needs the scopes mcp:admin", scope="mcp:tools mcp:admin", resource_metadata="${metadataUrl()}"`,
    );
    await transport.terminateSession();
  } finally {
    await client.close();
  }
});

test('SDK v2 client: the 403 insufficient_scope challenge makes it get a token with mcp:admin and retry (step-up)', async () => {
  const log: Exchange[] = [];
  const authProvider = new V2ClientCredentialsProvider({ clientId: 'v2-client', clientSecret: 'v2-secret', expectedIssuer: example.issuer });
  const client = new V2Client({ name: 'oauth-spec-v2', version: '1.0.0' });
  const transport = new V2Transport(new URL(example.mcpUrl), { authProvider, fetch: recordingFetch(log) });
  try {
    await client.connect(transport);
    const firstToken = log.find((exchange) => exchange.url === `${example.issuer}/token`);
    expect(new URLSearchParams(firstToken?.body).get('scope')).toBe('mcp:tools'); // the scope the 401 named
    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.structuredContent).toEqual({ clientId: 'v2-client', scopes: ['mcp:tools'] });

    const before = log.length;
    const report = await client.callTool({ name: 'admin_report', arguments: { topic: 'backups' } });
    expect(report.content).toEqual([{ type: 'text', text: 'admin report on backups: all systems nominal' }]);
    // POSTs only: the client's GET stream, opened in the background after connect, may be logged in between (seen
    // on a loaded machine: its 200 came first).
    const stepUp = log.slice(before).filter((exchange) => exchange.method === 'POST');
    expect(stepUp[0].status).toBe(403);
    expect(stepUp[0].wwwAuthenticate).toContain('error="insufficient_scope"');
    const secondToken = stepUp.find((exchange) => exchange.url === `${example.issuer}/token`);
    expect(new URLSearchParams(secondToken?.body).get('scope')?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools']);
    expect(stepUp[stepUp.length - 1]).toMatchObject({ url: example.mcpUrl, status: 200 });
    const after = await client.callTool({ name: 'whoami', arguments: {} });
    expect((after.structuredContent as { scopes: string[] }).scopes.sort()).toEqual(['mcp:admin', 'mcp:tools']);
  } finally {
    await client.close();
  }
});

test("the example's client (SDK v1, every scope it needs configured) lists and calls both tools", async () => {
  const lines: string[] = [];
  const texts = await runOAuthClient(example.mcpUrl, example.issuer, (line) => lines.push(line));
  expect(lines[0]).toBe('tools: whoami, admin_report');
  expect(texts).toEqual(['client example-client with scopes mcp:tools mcp:admin', 'admin report on everything: all systems nominal']);
});

test('a forged token (not signed by the authorization server) is refused with 401 invalid_token', async () => {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ iss: example.issuer, aud: example.mcpUrl, scope: 'mcp:tools mcp:admin', exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url');
  const response = await fetch(example.mcpUrl, {
    method: 'POST',
    headers: { Authorization: `Bearer ${header}.${payload}.c2lnbmF0dXJl`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  await response.text();
});
