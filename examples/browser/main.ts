import { startBrowserExample } from './server';

// npm run example:browser (PORT for the MCP server, PAGE_PORT for the page, HOST)
startBrowserExample({ port: Number(process.env.PORT ?? 3000), pagePort: Number(process.env.PAGE_PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' }).then(
  (example) => {
    console.log(`MCP server on ${example.mcpUrl} (CORS for the page's origin)`);
    console.log(`Open ${example.pageUrl} in a browser: the page calls the server with the official client`);
    const stop = () => void example.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
