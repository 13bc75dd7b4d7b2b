#!/usr/bin/env node
// One benchmark target, served in its own process: `node bench/server.js <target>`.
// Started by bench/run.js with fork(); listens on 127.0.0.1 on a free port (port 0) and reports
// { type: 'ready', port } over IPC. The message { type: 'stop' } (or the parent going away) closes it
// with process.exit(0), so that `--cpu-prof` gets to write its profile.
'use strict';

const path = require('node:path');
const { randomUUID } = require('node:crypto');
const express = require('express');
const { z } = require('zod');
const { TARGETS, SUM_RESULT } = require('./targets.js');

const root = path.join(__dirname, '..');

const builders = {
  /** The ceiling: Express parses the same JSON and answers the JSON-RPC result a tools/call of "sum" returns. */
  'express-bare'() {
    const app = express();
    const body = { jsonrpc: '2.0', id: 1, result: SUM_RESULT };
    app.post('/mcp', express.json(), (req, res) => res.json(body));
    return { app };
  },

  'mcp-express'() {
    return ours({});
  },

  'mcp-express-json'() {
    return ours({ enableJsonResponse: true });
  },

  /** The same server; the client speaks 2026-07-28 (see targets.js), so every call takes the stateless path. */
  'mcp-express-2026'() {
    return ours({});
  },

  /** The same two, from another CommonJS build (--alt-dist): to measure a patch side by side with the current build. */
  'mcp-express-alt'() {
    return ours({}, process.env.BENCH_ALT_DIST);
  },

  'mcp-express-json-alt'() {
    return ours({ enableJsonResponse: true }, process.env.BENCH_ALT_DIST);
  },

  /** The official SDK's documented stateful pattern (examples/server/simpleStreamableHttp): transports by session id. */
  'sdk-v1-stateful'() {
    const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
    const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
    const app = createMcpExpressApp();
    const transports = new Map();
    app.post('/mcp', async (req, res) => {
      try {
        const sessionId = req.headers['mcp-session-id'];
        let transport = sessionId ? transports.get(sessionId) : undefined;
        if (!transport) {
          if (sessionId || !isInitializeRequest(req.body)) {
            res.status(sessionId ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
            return;
          }
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              transports.set(id, transport);
            },
          });
          transport.onclose = () => {
            if (transport.sessionId) transports.delete(transport.sessionId);
          };
          await sdkServer().connect(transport);
        }
        await transport.handleRequest(req, res, req.body);
      } catch (error) {
        console.error('[bench sdk-v1-stateful]', error);
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
      }
    });
    return { app, close: async () => Promise.all([...transports.values()].map((t) => t.close())) };
  },

  /** The official SDK's documented stateless pattern (examples/server/simpleStatelessStreamableHttp): a new server and transport per request. */
  'sdk-v1-stateless'() {
    const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
    const app = createMcpExpressApp();
    app.post('/mcp', async (req, res) => {
      const server = sdkServer();
      try {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        res.on('close', () => {
          transport.close();
          server.close();
        });
      } catch (error) {
        console.error('[bench sdk-v1-stateless]', error);
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
      }
    });
    return { app };
  },
};

/** Our middleware, from the built CommonJS output, mounted the documented way. */
function ours(options, dist = path.join(root, 'dist/cjs')) {
  if (!dist) throw new Error('BENCH_ALT_DIST is not set');
  const { McpServer, mcpMiddleware } = require(path.resolve(root, dist, 'index.js'));
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  const config = { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } };
  const handler = async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] });
  if (typeof server.tool === 'function') server.tool('sum', config, handler);
  else server.registerTool('sum', config, handler);
  const middleware = mcpMiddleware({ server, ...options });
  const app = express();
  app.use(middleware);
  return { app, close: () => middleware.close() };
}

function sdkServer() {
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}

function main() {
  const target = process.argv[2];
  const build = builders[target];
  if (!build || !TARGETS.some((t) => t.name === target)) {
    console.error(`usage: node bench/server.js <${Object.keys(builders).join('|')}>`);
    process.exit(2);
  }
  const { app, close } = build();
  const http = app.listen(0, '127.0.0.1', () => {
    const { port } = http.address();
    if (process.send) process.send({ type: 'ready', port });
    else console.log(`${target} listening on http://127.0.0.1:${port}/mcp`);
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), 2000);
    force.unref();
    try {
      await close?.();
    } catch {
      // shutting down anyway
    }
    http.closeAllConnections();
    http.close(() => process.exit(0));
  };
  process.on('message', (message) => {
    if (message && message.type === 'stop') void stop();
    // CPU time is what a noisy shared machine cannot distort much: the parent samples it around each run.
    if (message && message.type === 'usage') process.send({ type: 'usage', seq: message.seq, cpu: process.cpuUsage(), heapUsed: process.memoryUsage().heapUsed });
  });
  process.on('disconnect', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main();
