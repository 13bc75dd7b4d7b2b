#!/usr/bin/env node
// Socket writes (system calls) per tools/call, counted in each bench server by a wrapper around
// net.Socket.prototype._writeGeneric (bench/count-writes.js): do the middleware's answers cost more system calls
// than the floor's? Calls are made one at a time on one keep-alive connection, after 20 unmeasured ones.
//
//   node bench/socket-writes.js [--smoke] [--calls 200]
//
// Results: bench/results/socket-writes.json.
'use strict';

const http = require('node:http');
const path = require('node:path');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { TARGETS, MODERN_PROTOCOL_VERSION } = require('./targets.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, calls: { type: 'string' } } });

/** Targets without Redis (the Redis socket's writes would count too; bench/redis-trips.js covers those). */
const MEASURED = ['node-floor', 'node-mcp-2026', 'node-mcp-session', 'node-mcp-session-memory', 'node-mcp-session-progress', 'express-bare', 'mcp-express', 'mcp-express-2026'];

kit.runScenario('socket-writes', async (smoke) => {
  const calls = Number(values.calls ?? (smoke ? 20 : 200));
  const results = [];
  for (const name of MEASURED) {
    const target = TARGETS.find((t) => t.name === name);
    const server = await kit.startServer(name, ['--require', path.join(__dirname, 'count-writes.js')]);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      let headers = { ...kit.JSON_HEADERS };
      if (target.modern) headers = { ...headers, 'MCP-Protocol-Version': MODERN_PROTOCOL_VERSION, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sum' };
      else if (target.mcp) headers = (await kit.openSession(server.url, agent)).headers;
      const meta = target.modern
        ? { 'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' } }
        : undefined;
      const call = async (id) => {
        const params = { name: target.progress ? 'sum_progress' : 'sum', arguments: { a: 2, b: 3 }, _meta: meta ?? (target.progress ? { progressToken: id } : undefined) };
        const answer = await kit.request(server.url, { headers, agent, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) });
        if (answer.status !== 200 || !answer.text.includes('"text":"5"')) throw new Error(`${name}: tools/call answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        return answer;
      };
      for (let i = 1; i <= 20; i++) await call(i);
      const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
      await settle();
      const before = await server.request('writes');
      let last;
      for (let i = 0; i < calls; i++) last = await call(1000 + i);
      await settle();
      const after = await server.request('writes');
      const row = { target: name, calls, writesPerCall: (after.writes - before.writes) / calls, buffersPerCall: (after.buffers - before.buffers) / calls, responseBytes: Buffer.byteLength(last.text) };
      results.push(row);
      console.log(`${name.padEnd(28)} ${row.writesPerCall.toFixed(2)} socket writes per call, ${row.buffersPerCall.toFixed(2)} buffers, body ${row.responseBytes} bytes`);
    } finally {
      agent.destroy();
      await kit.stopServer(server);
    }
  }
  kit.writeResult('socket-writes', { settings: { calls }, results }, { smoke });
  if (smoke) console.log('socket-writes smoke: every answer checked: OK');
}, 300);
