import { startOAuthExample } from './server';

const port = Number(process.env.PORT ?? 3000);
const authPort = Number(process.env.AUTH_PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

startOAuthExample({ port, authPort, host }).then(
  (example) => {
    console.log(`OAuth-protected MCP server on ${example.mcpUrl}`);
    console.log(`Local authorization server (oauth2-mock-server, for trials only): ${example.issuer}`);
    console.log('Try it with the official SDK client: npm run example:oauth:client');
    const stop = () => void example.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
