#!/usr/bin/env node
// Memory of idle sessions: a server (the default LocalSessionManager, on plain node:http, run with --expose-gc)
// gets `sessions` 2025-11-25 sessions (initialize + notifications/initialized each) over keep-alive connections;
// the connections are then closed and the server reports heapUsed and RSS after full GCs. Per session: the growth
// over a baseline taken after a warm-up of 200 sessions, divided by the number of sessions.
//
// A second sample is taken once the sessions have been idle past the LocalSessionManager's completedStreamTtl
// (60 s; the stream of each initialize is kept that long for a resume, and swept every 15 s): the steady state of
// an idle session. (--idle-wait <s>, default 80; 0 skips it, as --smoke does.)
//
//   node bench/memory.js [--smoke] [--sessions 10000] [--concurrency 16] [--heap-snapshot] [--idle-wait 80]
//
// --heap-snapshot: heap snapshots before the sessions, just after them and after the idle wait (in a temp dir,
// deleted afterwards), on a server of their own; the growth per
// session by constructor goes into the results. Results: bench/results/memory.json.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, sessions: { type: 'string' }, concurrency: { type: 'string' }, 'heap-snapshot': { type: 'boolean' }, 'idle-wait': { type: 'string' } } });

kit.runScenario('memory', async (smoke) => {
  const count = Number(values.sessions ?? (smoke ? 500 : 10_000));
  const concurrency = Number(values.concurrency ?? 16);
  const warmup = smoke ? 50 : 200;
  const idleWaitSeconds = Number(values['idle-wait'] ?? (smoke ? 0 : 80));
  const row = await measure({ count, concurrency, warmup, idleWaitSeconds });
  console.log(
    `${count} idle sessions (opened in ${row.openSeconds.toFixed(1)} s): heap ${(row.heapBytesPerSession / 1024).toFixed(2)} KB, ` +
      `RSS ${(row.rssBytesPerSession / 1024).toFixed(2)} KB, external ${(row.externalBytesPerSession / 1024).toFixed(2)} KB per session ` +
      `(heap ${(row.before.heapUsed / 2 ** 20).toFixed(1)} -> ${(row.after.heapUsed / 2 ** 20).toFixed(1)} MiB, RSS ${(row.before.rss / 2 ** 20).toFixed(1)} -> ${(row.after.rss / 2 ** 20).toFixed(1)} MiB)`,
  );
  let heapSnapshot;
  if (values['heap-snapshot']) {
    // On a server of its own: writing a snapshot inflates the RSS, which would spoil the figures above.
    heapSnapshot = (await measure({ count, concurrency, warmup, idleWaitSeconds, snapshots: true })).heapSnapshot;
    for (const [when, list] of [['just opened', heapSnapshot.fresh], ['idle', heapSnapshot.byConstructor]]) {
      if (!list) continue;
      console.log(`heap growth per session by constructor (self sizes), ${when}:`);
      for (const c of list.slice(0, 12)) console.log(`  ${c.bytesPerSession.toFixed(0).padStart(6)} B  ${c.countPerSession.toFixed(2).padStart(6)} objects  ${c.name}`);
    }
  }
  delete row.heapSnapshot;
  kit.writeResult('memory', { settings: { sessions: count, warmup, concurrency, idleWaitSeconds }, result: row, heapSnapshot }, { smoke });
  if (smoke) console.log(`memory smoke: ${count} sessions opened, every initialize checked: OK`);
}, 900);

/** One server: `warmup` sessions, a baseline, `count` more sessions, the growth (and with `snapshots`, by constructor). */
async function measure({ count, concurrency, warmup, idleWaitSeconds, snapshots = false }) {
  const server = await kit.startServer('sessions', ['--expose-gc']);
  const snapshot = async (name) =>
    (await server.request('heap-snapshot', 'heap-snapshot', { file: path.join(os.tmpdir(), `mcp-express-sessions-${name}-${process.pid}.heapsnapshot`) })).file;
  try {
    const settle = async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sample = await server.request('memory');
      if (!sample.gc) throw new Error('the server has no global.gc (run it with --expose-gc)');
      return sample;
    };
    const open = async (n, ids) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      let next = 0;
      const worker = async () => {
        while (next < n) {
          next++;
          const { sessionId } = await kit.openSession(server.url, agent);
          ids.add(sessionId);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      agent.destroy(); // idle sessions: no connection left open
    };
    const ids = new Set();
    await open(warmup, ids);
    const before = await settle();
    const snapshotBefore = snapshots ? await snapshot('before') : undefined;
    const started = performance.now();
    await open(count, ids);
    const openSeconds = (performance.now() - started) / 1000;
    if (ids.size !== warmup + count) throw new Error(`${ids.size} distinct session ids for ${warmup + count} initializes`);
    const first = await settle();
    // Twice, a little later: RSS settles as the allocator returns pages.
    const fresh = await settle();
    const perSession = (field, sample) => (sample[field] - before[field]) / count;
    let after = fresh;
    const snapshotFresh = snapshotBefore && idleWaitSeconds > 0 ? await snapshot('fresh') : undefined;
    if (idleWaitSeconds > 0) {
      console.log(`  ${snapshots ? '(heap snapshots) ' : ''}waiting ${idleWaitSeconds} s for the sessions to go idle past completedStreamTtl...`);
      await new Promise((resolve) => setTimeout(resolve, idleWaitSeconds * 1000));
      after = await settle();
    }
    let heapSnapshot;
    if (snapshotBefore) {
      const snapshotAfter = await snapshot('after');
      heapSnapshot = { byConstructor: growthByConstructor(snapshotBefore, snapshotAfter, count) };
      if (snapshotFresh) heapSnapshot.fresh = growthByConstructor(snapshotBefore, snapshotFresh, count);
      for (const file of [snapshotBefore, snapshotFresh, snapshotAfter].filter(Boolean)) fs.rmSync(file, { force: true });
    }
    return {
      sessions: count,
      warmupSessions: warmup,
      concurrency,
      openSeconds,
      heapBytesPerSession: perSession('heapUsed', after),
      rssBytesPerSession: perSession('rss', after),
      externalBytesPerSession: perSession('external', after),
      /** Right after opening (each initialize's finished stream still kept for resumes), before the idle wait. */
      fresh: {
        heapBytesPerSession: perSession('heapUsed', fresh),
        rssBytesPerSession: perSession('rss', fresh),
        heapBytesPerSessionFirstSample: perSession('heapUsed', first),
        rssBytesPerSessionFirstSample: perSession('rss', first),
      },
      idleWaitSeconds,
      before,
      after,
      heapSnapshot,
    };
  } finally {
    await kit.stopServer(server);
  }
}

/** Self size and count per constructor (or node type) in a .heapsnapshot file. */
function byConstructor(file) {
  const { snapshot, nodes, strings } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const totals = new Map();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + typeAt]];
    const key = type === 'object' ? strings[nodes[i + nameAt]] : type === 'native' || type === 'hidden' || type === 'array' ? `(${type}) ${strings[nodes[i + nameAt]]}`.slice(0, 60) : `(${type})`;
    const entry = totals.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += nodes[i + sizeAt];
    entry.count++;
    totals.set(key, entry);
  }
  return totals;
}

/** What grew between two snapshots, per session, largest first. */
function growthByConstructor(beforeFile, afterFile, sessions) {
  const before = byConstructor(beforeFile);
  const after = byConstructor(afterFile);
  return [...after]
    .map(([name, { bytes, count }]) => ({ name, bytesPerSession: (bytes - (before.get(name)?.bytes ?? 0)) / sessions, countPerSession: (count - (before.get(name)?.count ?? 0)) / sessions }))
    .filter((c) => c.bytesPerSession > 1)
    .sort((a, b) => b.bytesPerSession - a.bytesPerSession)
    .slice(0, 30);
}
