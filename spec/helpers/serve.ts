import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mcpMiddleware, type McpMiddlewareOptions, type McpRequestHandler } from '../../lib/index.js';

export interface Served {
  url: string;
  port: number;
  app: express.Express;
  middleware: McpRequestHandler;
  http: Server;
  close(): Promise<void>;
}

/** Mounts the middleware on a real Express app listening on 127.0.0.1 (random port). */
export async function serve(options: McpMiddlewareOptions, before?: (app: express.Express) => void): Promise<Served> {
  const app = express();
  before?.(app);
  const middleware = mcpMiddleware(options);
  app.use(middleware);
  const http = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    app,
    middleware,
    http,
    async close() {
      await middleware.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
