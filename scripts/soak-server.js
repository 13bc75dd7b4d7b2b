#!/usr/bin/env node
// The target of the memory soak (scripts/soak.js): the "everything" example server from the build, served the way
// examples/everything/main.ts serves it, plus what the soak needs and the example lacks. Nothing here is part of
// the package or the example.
//
// Started by soak.js with fork() and `--expose-gc`; listens on 127.0.0.1 on a free port and reports
// { type: 'ready', port } over IPC. Additions:
// - two tools: `soak_echo` returns its `text` argument; `soak_flood` sends `bytes` bytes of progress messages,
//   `chunkBytes` at a time, yielding to the event loop between batches (a handler that streams a lot);
// - GET /__soak/memory runs a full garbage collection and answers process.memoryUsage() and the flood counters;
//   GET /__soak/state answers the flood counters without collecting;
// - SOAK_EVENT_STORE=1 gives the session manager an InMemoryEventStore (resumable events shared by all sessions);
// - the principal of a request is its `X-Soak-Principal` header (none: no principal, as in the example).
// SOAK_ROOT points at another checkout's build (default: this repository), to measure two builds side by side.
'use strict';

const path = require('node:path');
const express = require('express');
const { z } = require('zod');

const root = path.resolve(process.env.SOAK_ROOT ?? path.join(__dirname, '..'));
const { mcpMiddleware, LocalSessionManager, InMemoryEventStore } = require(path.join(root, 'dist/cjs/index.js'));
const { createEverythingServer } = require(path.join(root, 'dist/examples/everything/server.js'));

const floods = { started: 0, finished: 0, bytesSent: 0 };

function addSoakTools(server) {
  server.tool(
    'soak_echo',
    { description: 'Returns its text argument (memory soak)', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.tool(
    'soak_flood',
    {
      description: 'Sends `bytes` bytes of progress messages, `chunkBytes` per message (memory soak)',
      inputSchema: { bytes: z.number().int().positive(), chunkBytes: z.number().int().positive() },
    },
    async ({ bytes, chunkBytes }, ctx) => {
      floods.started++;
      const message = 'p'.repeat(chunkBytes);
      const count = Math.ceil(bytes / chunkBytes);
      for (let i = 1; i <= count; i++) {
        ctx.progress(i, count, message);
        floods.bytesSent += chunkBytes;
        if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      floods.finished++;
      return { content: [{ type: 'text', text: `sent ${count} progress messages of ${chunkBytes} bytes` }] };
    },
  );
}

const server = createEverythingServer();
addSoakTools(server);
const options = {
  server,
  principalOf: (req) => {
    const principal = req.headers['x-soak-principal'];
    return typeof principal === 'string' ? principal : undefined;
  },
};
if (process.env.SOAK_EVENT_STORE === '1') {
  options.sessionManager = new LocalSessionManager({ eventStore: new InMemoryEventStore() });
}

const app = express();
app.get('/__soak/state', (_req, res) => res.json({ floods }));
app.get('/__soak/memory', (_req, res) => {
  if (typeof global.gc === 'function') {
    global.gc();
    global.gc();
  }
  res.json({ ...process.memoryUsage(), gc: typeof global.gc === 'function', floods });
});
const mcp = mcpMiddleware(options);
app.use(mcp);

const listener = app.listen(0, '127.0.0.1', () => {
  const { port } = listener.address();
  if (process.send) process.send({ type: 'ready', port });
  else console.log(`soak server listening on http://127.0.0.1:${port}/mcp`);
});

function stop() {
  listener.closeAllConnections?.();
  mcp.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('disconnect', stop);
