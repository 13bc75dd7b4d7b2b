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
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    app,
    middleware,
    http,
    // Idempotent: a test may close a server itself and leave it to an afterEach as well.
    close() {
      closing ??= (async () => {
        await middleware.close({ drainTimeout: 0 });
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      })();
      return closing;
    },
  };
}

/**
 * Returns `track`: every server (or client) passed to it is closed in an `afterEach` of the calling scope, so a
 * failing test never leaves one open. Call it at the top of a test file or `describe`.
 */
export function closeAfterEach(): <T extends { close(): Promise<void> }>(closable: T) => T {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((closable) => closable.close()));
  });
  return (closable) => {
    open.push(closable);
    return closable;
  };
}

/**
 * Counts the responses of `app` that are still open, as the server sees them: install it with `serve`'s `before`
 * hook, then wait for `open` to drop to know the server has noticed a client leave (no sleeping on a guess).
 */
export function countOpenResponses(app: express.Express): { readonly open: number } {
  const counter = { open: 0 };
  app.use((_req, res, next) => {
    counter.open++;
    res.on('close', () => counter.open--);
    next();
  });
  return counter;
}

/** A started Express app of a test (listening on 127.0.0.1, random port): its base URL and close(). */
export interface ListeningApp {
  url: string;
  close(): Promise<void>;
}

/** Listens `app` on 127.0.0.1 (random port); close() closes `mcp` first, then every connection and the server. */
export async function listenApp(app: express.Express, mcp: { close(): Promise<void> }): Promise<ListeningApp> {
  const http = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
