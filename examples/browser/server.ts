import express from 'express';
import type { AddressInfo } from 'node:net';
import { mcpMiddleware } from 'mcp-express';
import { closeHttp, createBasicServer, listen, urlHost } from '../basic/server';
import { pageHtml } from './page';
import { vendorClient } from './vendor';

export interface RunningBrowserExample {
  /** The page to open in a browser. */
  pageUrl: string;
  /** The MCP endpoint the page calls, on another origin (another port). */
  mcpUrl: string;
  close(): Promise<void>;
}

/**
 * Two origins, as in production: the page on `pagePort`, the MCP server on `port` with `cors` naming the page's
 * origin. The page loads the official client as ES modules (an import map, no bundler) and calls the server.
 */
export async function startBrowserExample(options: { port: number; pagePort: number; host: string }): Promise<RunningBrowserExample> {
  const host = urlHost(options.host);
  const vendor = vendorClient();
  const page = express();
  let mcpUrl = '';
  page.get('/', (_req, res) => {
    res.type('html').send(pageHtml(mcpUrl, vendor.importMap));
  });
  page.use(vendor.router);
  const pageServer = await listen(page, options.pagePort, options.host);
  const pagePort = (pageServer.address() as AddressInfo).port;
  const pageOrigins = [`http://${host}:${pagePort}`, `http://localhost:${pagePort}`];

  const mcp = mcpMiddleware({ server: createBasicServer(), cors: { origins: pageOrigins } });
  const app = express();
  app.use(mcp);
  const mcpServer = await listen(app, options.port, options.host);
  mcpUrl = `http://${host}:${(mcpServer.address() as AddressInfo).port}/mcp`;

  return {
    pageUrl: `http://${host}:${pagePort}/`,
    mcpUrl,
    async close() {
      await mcp.close();
      for (const http of [mcpServer, pageServer]) await closeHttp(http);
    },
  };
}
