#!/usr/bin/env node
// The session layer of one tools/call alone: `LocalSessionManager.createStream` for a session of this process, then
// its stream read to the end and framed as SSE the way the HTTP layer frames it. No HTTP at all: what the session
// machinery costs (the stream objects, dispatch, the in-flight record, the events' JSON and ids), and what an
// `InMemoryEventStore` + `InMemorySessionStore` add to it at several `maxStreams` (the store holds that many
// streams, evicting one per call once full). docs/benchmarks.md sets these against the in-process table.
//
//   node bench/session-layer.js [--smoke] [--calls 20000] [--rounds 12] [--max-streams 100,1000,10000] [--concurrency 1]
//
// `--concurrency N` keeps N calls in flight at once in the one session (as the throughput runs' 10 connections
// do), where the default runs one call at a time.
//
// Each configuration runs in a process of its own (one build, one shape of stream in its inline caches), its
// figure the least CPU per call over the rounds (other jobs only ever add CPU time). Every answer is checked (the
// last event is the response with the result "5"). Results: bench/results/session-layer.json.
'use strict';

const { fork } = require('node:child_process');
const path = require('node:path');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { PROTOCOL_VERSION } = require('./targets.js');

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean' },
    calls: { type: 'string' },
    rounds: { type: 'string' },
    'max-streams': { type: 'string' },
    concurrency: { type: 'string' },
    config: { type: 'string' },
  },
});

/** One configuration, measured in this (child) process; sends { perCall, rounds } to the parent. */
async function measure(config, calls, rounds, concurrency) {
  const dist = path.resolve(kit.root, process.env.BENCH_DIST || 'dist/cjs');
  const { McpServer, LocalSessionManager, InMemoryEventStore, InMemorySessionStore, mcpMiddleware } = require(path.join(dist, 'index.js'));
  const { formatStreamEvent } = require(path.join(dist, 'http/sse-format.js'));
  const { z } = require('zod');
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  const register = (name, cfg, fn) => (typeof server.tool === 'function' ? server.tool(name, cfg, fn) : server.registerTool(name, cfg, fn));
  register('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  const stores = config.maxStreams === undefined ? {} : { eventStore: new InMemoryEventStore({ maxStreams: config.maxStreams }), sessionStore: new InMemorySessionStore() };
  const manager = new LocalSessionManager(stores);
  // The middleware attaches the manager to the server (as in an app); its HTTP handler is not used.
  const middleware = mcpMiddleware({ server, sessionManager: manager });
  const info = { authInfo: undefined, httpRequest: undefined, principal: undefined };
  const init = await manager.initializeSession(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } },
    info,
  );
  for await (const _event of init.stream);
  let id = 0;
  /** One call: its stream read to the end, framed; returns the last event (checked by the caller). */
  const call = async () => {
    const request = { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'sum', arguments: { a: 2, b: 3 } } };
    const iterator = (await manager.createStream(init.sessionId, request, info))[Symbol.asyncIterator]();
    let last;
    let frames = '';
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      frames += formatStreamEvent(next.value);
      last = next.value;
      for (let queued = iterator.takeQueued?.(); queued !== undefined; queued = iterator.takeQueued()) {
        frames += formatStreamEvent(queued);
        last = queued;
      }
      if (iterator.exhausted) break;
    }
    if (last?.message?.id !== request.id || last.message.result?.content?.[0]?.text !== '5' || !frames.includes('"text":"5"')) {
      throw new Error(`call ${request.id}: the stream did not end with the result "5" (last event: ${JSON.stringify(last).slice(0, 300)})`);
    }
  };
  /** `count` calls, `concurrency` of them in flight at once. */
  const run = async (count) => {
    if (concurrency === 1) {
      for (let i = 0; i < count; i++) await call();
      return;
    }
    let left = count;
    const worker = async () => {
      while (left > 0) {
        left--;
        await call();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  await run(Math.min(calls, 2000));
  const perRound = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(start);
    perRound.push((used.user + used.system) / calls);
  }
  await middleware.close({ drainTimeout: 0 });
  return { perCall: Math.min(...perRound), medianRound: kit.median(perRound), rounds: perRound };
}

if (values.config) {
  const config = JSON.parse(values.config);
  measure(config, Number(values.calls), Number(values.rounds), Number(values.concurrency ?? 1)).then(
    // Forked by the parent: the result goes back over IPC; run by hand (`--config '{"name":"x"}'`): printed.
    (result) => (process.send ? process.send(result, () => process.exit(0)) : console.log(JSON.stringify(result))),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  kit.runScenario(
    'session-layer',
    async (smoke) => {
      const calls = Number(values.calls ?? (smoke ? 500 : 20_000));
      const rounds = Number(values.rounds ?? (smoke ? 2 : 12));
      const maxStreams = (values['max-streams'] ?? (smoke ? '100' : '100,1000,10000')).split(',').map(Number);
      const concurrency = Number(values.concurrency ?? 1);
      if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new TypeError(`--concurrency must be a whole number of at least 1 (got ${values.concurrency})`);
      const configs = [{ name: 'no stores' }, ...maxStreams.map((n) => ({ name: `in-memory stores, maxStreams ${n}`, maxStreams: n }))];
      const results = [];
      for (const config of configs) {
        const result = await new Promise((resolve, reject) => {
          const child = fork(__filename, ['--config', JSON.stringify(config), '--calls', String(calls), '--rounds', String(rounds), '--concurrency', String(concurrency)], { cwd: kit.root, stdio: 'inherit' });
          let answer;
          child.once('message', (message) => (answer = message));
          child.once('exit', (code) => (code === 0 && answer ? resolve(answer) : reject(new Error(`${config.name}: the measuring process exited with code ${code}`))));
        });
        console.log(`${config.name.padEnd(36)} ${result.perCall.toFixed(2).padStart(6)} µs CPU per call (median round ${result.medianRound.toFixed(2)})`);
        results.push({ ...config, ...result });
      }
      kit.writeResult('session-layer', { settings: { calls, rounds, concurrency }, results }, { smoke: smoke || Boolean(values.calls || values['max-streams'] || values.concurrency) });
    },
    900,
  );
}
