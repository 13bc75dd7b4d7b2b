import { startBasicExample } from './server';

// npm run example:basic (PORT, HOST to change where it listens)
startBasicExample({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' }).then(
  (example) => {
    console.log(`MCP server "basic" on ${example.url}`);
    const stop = () => void example.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
