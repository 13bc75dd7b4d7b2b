#!/usr/bin/env node
// Resume of 1,000 stored events: a session tool call sends 1,000 progress notifications (each one an event in the
// EventStore), then its result; a GET with Last-Event-ID = the stream's priming event replays all of them. Timed
// from sending the GET to the last byte of its answer, on a keep-alive connection; median of several.
//
//   node bench/resume.js [--smoke] [--stores memory,redis] [--events 1000] [--repeats 21]
//
// Stores: 'memory' (InMemoryEventStore), 'redis' (RedisEventStore + RedisStreamLeases on the Redis the tests use,
// under a key prefix of its own, deleted afterwards). Every replay is checked: all the events, in order, then the
// result. Results: bench/results/resume.json.
'use strict';

const http = require('node:http');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { connectRedis } = require('./redis-helper.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, stores: { type: 'string' }, events: { type: 'string' }, repeats: { type: 'string' } } });

kit.runScenario('resume', async (smoke) => {
  const events = Number(values.events ?? (smoke ? 200 : 1000));
  const repeats = Number(values.repeats ?? (smoke ? 3 : 21));
  const warmups = smoke ? 1 : 5;
  let stores = (values.stores ?? 'memory,redis').split(',').map((s) => s.trim()).filter(Boolean);
  if (stores.includes('redis')) {
    const probe = await connectRedis();
    if (probe instanceof Error) {
      if (!smoke || process.env.REQUIRE_REDIS === '1') throw probe;
      console.warn(`resume: ${probe.message}; the Redis store is skipped (REQUIRE_REDIS=1 makes this a failure)`);
      stores = stores.filter((s) => s !== 'redis');
    } else await probe.close();
  }
  const results = [];
  for (const store of stores) {
    const server = await kit.startServer(`resume-${store}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { headers } = await kit.openSession(server.url, agent);
      const samples = [];
      for (let i = 0; i < warmups + repeats; i++) {
        // A fresh stream each time: a resume of a stream replays it from the store, not from a warm cache of the GET.
        const call = await kit.request(server.url, {
          headers,
          agent,
          body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'emit', arguments: { count: events }, _meta: { progressToken: `p${i}` } } }),
        });
        const live = kit.sseEvents(call.text);
        if (call.status !== 200 || live.length < events + 1) throw new Error(`${store}: the tool call answered ${call.status} with ${live.length} events: ${call.text.slice(0, 300)}`);
        const priming = live[0];
        if (priming.data !== undefined || !priming.id) throw new Error(`${store}: the stream did not start with a priming event (an id and no data): ${call.text.slice(0, 300)}`);
        const resume = await kit.request(server.url, { method: 'GET', headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': headers['MCP-Protocol-Version'], 'Mcp-Session-Id': headers['Mcp-Session-Id'], 'Last-Event-ID': priming.id }, agent });
        checkReplay(store, resume, events, i + 1, `p${i}`);
        if (i >= warmups) samples.push(resume.ms);
      }
      const row = {
        store,
        events,
        repeats,
        medianMs: kit.median(samples),
        minMs: Math.min(...samples),
        p90Ms: kit.percentile(samples, 0.9),
        maxMs: Math.max(...samples),
        samples,
      };
      results.push(row);
      console.log(`resume of ${events} stored events from ${store.padEnd(6)}: median ${row.medianMs.toFixed(2)} ms (min ${row.minMs.toFixed(2)}, p90 ${row.p90Ms.toFixed(2)}, max ${row.maxMs.toFixed(2)}) over ${repeats}`);
    } finally {
      agent.destroy();
      await kit.stopServer(server);
    }
  }
  kit.writeResult('resume', { settings: { events, repeats, warmups }, results }, { smoke });
  if (smoke) console.log(`resume smoke: ${results.length} store(s), every replay checked: OK`);
}, 600);

/** The replay holds every progress notification, in order, then the result "done", each with an event id. */
function checkReplay(store, resume, events, id, token) {
  if (resume.status !== 200) throw new Error(`${store}: the resume GET answered ${resume.status}: ${resume.text.slice(0, 300)}`);
  const replayed = kit.sseEvents(resume.text).filter((e) => e.data !== undefined);
  const progress = replayed.filter((e) => e.data.method === 'notifications/progress');
  const response = replayed.find((e) => e.data.id === id);
  if (progress.length !== events) throw new Error(`${store}: the resume replayed ${progress.length} of ${events} progress notifications`);
  progress.forEach((e, i) => {
    if (e.data.params.progress !== i + 1 || e.data.params.progressToken !== token || !e.id) throw new Error(`${store}: replayed event ${i} is not progress ${i + 1} of ${token} with an id: ${JSON.stringify(e)}`);
  });
  if (response?.data.result?.content?.[0]?.text !== 'done' || replayed.indexOf(response) !== replayed.length - 1) {
    throw new Error(`${store}: the resume did not end with the result "done": ${resume.text.slice(-300)}`);
  }
}
