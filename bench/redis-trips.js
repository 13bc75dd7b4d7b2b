#!/usr/bin/env node
// Redis round trips and commands per operation of the Redis-backed servers, counted by a TCP proxy between the
// bench server and Redis: a "round trip" is one burst of bytes the server sends before Redis answers (commands
// node-redis pipelines in one tick travel in one burst; a MULTI/EXEC transaction is one burst), a "command" is one
// RESP command array in those bytes. Requests are made one at a time, so bursts of different requests never merge.
//
//   node bench/redis-trips.js [--smoke] [--calls 50] [--events 1000]
//
// Measured: a session tools/call (sum) with the Redis stores, leases and bus (node-mcp-session-redis), the same
// with one progress notification, and a tool call that stores `events` progress events (resume-redis): round trips
// per stored event. Results: bench/results/redis-trips.json.
'use strict';

const http = require('node:http');
const net = require('node:net');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { REDIS_URL, connectRedis } = require('./redis-helper.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, calls: { type: 'string' }, events: { type: 'string' } } });

kit.runScenario('redis-trips', async (smoke) => {
  const probe = await connectRedis();
  if (probe instanceof Error) {
    if (smoke && process.env.REQUIRE_REDIS !== '1') {
      console.warn(`redis-trips: ${probe.message}; skipped (REQUIRE_REDIS=1 makes this a failure)`);
      return;
    }
    throw probe;
  }
  await probe.close();
  const calls = Number(values.calls ?? (smoke ? 5 : 50));
  const events = Number(values.events ?? (smoke ? 100 : 1000));
  const proxy = await countingProxy(new URL(REDIS_URL));
  const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
  const results = [];
  try {
    for (const [target, tool] of [['node-mcp-session-redis', 'sum'], ['node-mcp-session-redis-progress', 'sum_progress']]) {
      const server = await kit.startServer(target, [], env);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const { headers } = await kit.openSession(server.url, agent);
        const call = (id) =>
          kit.request(server.url, { headers, agent, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { a: 2, b: 3 }, _meta: { progressToken: id } } }) });
        for (let i = 1; i <= 5; i++) await call(i); // warm: the session and its leases exist
        await settle();
        const before = proxy.snapshot();
        for (let i = 0; i < calls; i++) {
          const answer = await call(100 + i);
          if (answer.status !== 200 || !answer.text.includes('"text":"5"')) throw new Error(`${target}: tools/call answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        }
        await settle(); // what follows the response (stream completion, lease release) counts too
        const delta = proxy.since(before);
        results.push({ case: `${target}: one tools/call ${tool}`, target, per: 'tools/call', count: calls, roundTripsPer: delta.bursts / calls, commandsPer: delta.commands / calls, commandNames: perName(delta.names, calls) });
      } finally {
        agent.destroy();
        await kit.stopServer(server);
      }
    }
    const server = await kit.startServer('resume-redis', [], env);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { headers } = await kit.openSession(server.url, agent);
      await kit.request(server.url, { headers, agent, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'emit', arguments: { count: 10 }, _meta: { progressToken: 'w' } } }) });
      await settle();
      const before = proxy.snapshot();
      const answer = await kit.request(server.url, { headers, agent, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'emit', arguments: { count: events }, _meta: { progressToken: 'p' } } }) });
      if (answer.status !== 200 || kit.sseEvents(answer.text).length < events + 2) throw new Error(`emit answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      await settle();
      const delta = proxy.since(before);
      // Stored events: the priming event, each progress notification and the response.
      const stored = events + 2;
      results.push({ case: `resume-redis: a tool call storing ${stored} events`, target: 'resume-redis', per: 'stored event', count: stored, roundTripsPer: delta.bursts / stored, commandsPer: delta.commands / stored, commandNames: perName(delta.names, stored) });
    } finally {
      agent.destroy();
      await kit.stopServer(server);
    }
  } finally {
    proxy.close();
  }
  for (const r of results) {
    console.log(`${r.case.padEnd(64)} ${r.roundTripsPer.toFixed(2)} round trips, ${r.commandsPer.toFixed(2)} commands per ${r.per}: ${Object.entries(r.commandNames).map(([n, c]) => `${n} ${c.toFixed(2)}`).join(', ')}`);
  }
  kit.writeResult('redis-trips', { settings: { calls, events, redis: REDIS_URL }, results }, { smoke });
  if (smoke) console.log('redis-trips smoke: every answer checked: OK');
}, 300);

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

function perName(names, count) {
  return Object.fromEntries(Object.entries(names).sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, n / count]));
}

/** A TCP proxy to Redis counting, on the way in, the bursts (writes arriving after Redis last answered) and the commands. */
function countingProxy(target) {
  const totals = { bursts: 0, commands: 0, names: {} };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    const parser = respCounter((name) => {
      totals.commands++;
      totals.names[name] = (totals.names[name] ?? 0) + 1;
    });
    let answered = true; // a write after an answer (or the first) starts a new round trip
    client.on('data', (chunk) => {
      if (answered) totals.bursts++;
      answered = false;
      parser(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        snapshot: () => ({ bursts: totals.bursts, commands: totals.commands, names: { ...totals.names } }),
        since: (before) => ({
          bursts: totals.bursts - before.bursts,
          commands: totals.commands - before.commands,
          names: Object.fromEntries(Object.entries(totals.names).map(([n, c]) => [n, c - (before.names[n] ?? 0)]).filter(([, c]) => c > 0)),
        }),
        close: () => server.close(),
      }),
    );
  });
}

/** Feeds RESP bytes; calls `onCommand(name)` for each complete command array (name lower-cased). */
function respCounter(onCommand) {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      const parsed = parseCommand(buffer);
      if (!parsed) return;
      onCommand(parsed.name);
      buffer = buffer.subarray(parsed.end);
    }
  };
}

function parseCommand(buffer) {
  const line = (at) => {
    const end = buffer.indexOf('\r\n', at);
    return end < 0 ? undefined : { text: buffer.toString('latin1', at, end), next: end + 2 };
  };
  const head = line(0);
  if (!head) return undefined;
  if (head.text[0] !== '*') return { name: head.text.split(' ')[0].toLowerCase(), end: head.next }; // inline command
  const count = Number(head.text.slice(1));
  let at = head.next;
  let name = '';
  for (let i = 0; i < count; i++) {
    const size = line(at);
    if (!size) return undefined;
    const length = Number(size.text.slice(1));
    if (buffer.length < size.next + length + 2) return undefined;
    if (i === 0) name = buffer.toString('latin1', size.next, size.next + length).toLowerCase();
    at = size.next + length + 2;
  }
  return { name, end: at };
}
