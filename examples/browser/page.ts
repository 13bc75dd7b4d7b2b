/**
 * The page: the official MCP client (`@modelcontextprotocol/client`) running in the browser, calling the MCP
 * server on another origin through CORS. It lists the tools, calls `add`, and shows what came back.
 */
export function pageHtml(mcpUrl: string, importMap: object): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>MCP from the browser</title>
  <script type="importmap">${JSON.stringify(importMap)}</script>
</head>
<body>
  <h1>MCP from the browser</h1>
  <p>Server: <code id="server">${escapeHtml(mcpUrl)}</code></p>
  <p>Status: <output id="status">connecting…</output></p>
  <pre id="result"></pre>
  <script type="module">
    import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

    const status = document.getElementById('status');
    try {
      const client = new Client({ name: 'browser-example', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(${JSON.stringify(mcpUrl)}));
      await client.connect(transport);
      const { tools } = await client.listTools();
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      const report = {
        sessionId: transport.sessionId ?? null, // readable only because the server exposes Mcp-Session-Id
        tools: tools.map((tool) => tool.name),
        text: result.content[0].text,
        structuredContent: result.structuredContent,
      };
      await transport.terminateSession(); // DELETE: the session ends now, not at the idle timeout
      await client.close();
      document.getElementById('result').textContent = JSON.stringify(report, null, 2);
      status.textContent = 'done';
      window.mcpReport = report;
    } catch (error) {
      status.textContent = 'failed: ' + error;
      window.mcpReport = { error: String(error) };
    }
  </script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
