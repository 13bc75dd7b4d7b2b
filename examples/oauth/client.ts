import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * The official SDK v1 client against the example: it gets 401 with a resource_metadata challenge, discovers the
 * authorization server from the protected resource metadata, gets a token (client_credentials) for this resource,
 * and calls `whoami` and `admin_report` (which needs `mcp:admin`).
 */
export async function runOAuthClient(mcpUrl: string, issuer: string, log: (line: string) => void = console.log): Promise<string[]> {
  // SDK v1's client_credentials flow asks for its configured scope (not the one a challenge names), so it asks
  // for every scope it will use up front.
  const authProvider = new ClientCredentialsProvider({ clientId: 'example-client', clientSecret: 'example-secret', expectedIssuer: issuer, scope: 'mcp:tools mcp:admin' });
  const client = new Client({ name: 'oauth-example-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider });
  const texts: string[] = [];
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
    for (const name of ['whoami', 'admin_report']) {
      const result = await client.callTool({ name, arguments: {} });
      const text = (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('');
      texts.push(text);
      log(`${name}: ${text}`);
    }
    await transport.terminateSession();
  } finally {
    await client.close();
  }
  return texts;
}

if (require.main === module) {
  const mcpUrl = process.env.MCP_URL ?? 'http://127.0.0.1:3000/mcp';
  const issuer = process.env.ISSUER ?? 'http://127.0.0.1:3001';
  runOAuthClient(mcpUrl, issuer).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
