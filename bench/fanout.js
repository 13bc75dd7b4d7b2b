#!/usr/bin/env node
// Fan-out: `listeners` open 2026-07-28 subscriptions/listen streams (opted in to toolsListChanged) on one server
// process (mcpMiddleware on plain node:http, maxSubscriptions 20,000); the server is told over IPC to call
// server.notifyToolsListChanged(), and the time is taken from that call to the moment the last stream received its
// notifications/tools/list_changed. The listeners are raw sockets in this process (one fd each here and in the
// server: `ulimit -n` must be above the count). Repeated `notifications` times; median. The same is measured first
// on a floor server (plain node:http, no MCP) that writes the same event to every open stream: what the kernel and
// Node cost per stream on this machine.
//
//   node bench/fanout.js [--smoke] [--listeners 10000] [--notifications 7] [--profile]
//
// Results: bench/results/fanout.json. With --profile, the server's CPU profile of each fan-out (the inspector's
// profiler, from the notify to the end of its writes) is summarised in bench/results/profile-fanout.json instead
// (timings under the profiler are not comparable, so fanout.json is not written).
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { summarizeProfile, printProfileSummary } = require('./profile-summary.js');
const { parseArgs } = require('node:util');
const kit = require('./scenario-kit.js');
const { MODERN_PROTOCOL_VERSION } = require('./targets.js');

const { values } = parseArgs({ options: { smoke: { type: 'boolean' }, listeners: { type: 'string' }, notifications: { type: 'string' }, profile: { type: 'boolean' } } });

const LIST_CHANGED = 'notifications/tools/list_changed';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

kit.runScenario('fanout', async (smoke) => {
  const count = Number(values.listeners ?? (smoke ? 200 : 10_000));
  const notifications = Number(values.notifications ?? (smoke ? 2 : 7));
  const limit = kit.openFileLimit();
  if (limit < count + 200) throw new Error(`ulimit -n is ${limit}: ${count} listeners need at least ${count + 200} open files in this process and in the server (raise it with ulimit -n)`);
  if (values.profile) {
    await measure('fanout', { count, notifications, smoke, profile: true });
    return;
  }
  // The floor first (plain node:http writing the same event to every stream), then the middleware.
  const floor = await measure('fanout-floor', { count, notifications, smoke });
  const result = await measure('fanout', { count, notifications, smoke });
  console.log(`fan-out to ${count} listeners: mcp-express ${result.medianMs.toFixed(1)} ms, the node:http floor ${floor.medianMs.toFixed(1)} ms (medians)`);
  kit.writeResult('fanout', { settings: { listeners: count, notifications }, result, floor }, { smoke });
  if (smoke) console.log(`fanout smoke: ${count} listeners, every one got each of ${notifications} notifications once, from the floor and from mcp-express: OK`);
}, 900);

/** Opens `count` listeners on a fresh `serverName` server, sends `notifications` notifications, returns the timings. */
async function measure(serverName, { count, notifications, smoke, profile = false }) {
  console.log(`-- ${serverName}`);
  const server = await kit.startServer(serverName);
  const sockets = [];
  try {
    const openStarted = performance.now();
    // Opened in batches, each listener acknowledged before the next batch: the server's accept queue stays short.
    for (let at = 0; at < count; at += 250) {
      const batch = [];
      for (let i = at; i < Math.min(count, at + 250); i++) batch.push(listen(server.port, i));
      sockets.push(...(await Promise.all(batch)));
    }
    const openSeconds = (performance.now() - openStarted) / 1000;
    console.log(`${count} subscriptions/listen streams open and acknowledged in ${openSeconds.toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const rounds = [];
    const profileFiles = [];
    for (let n = 1; n <= notifications; n++) {
      const received = new Promise((resolve, reject) => {
        let pending = sockets.filter((s) => s.listChanged < n).length;
        let last = 0;
        const timer = setTimeout(() => reject(new Error(`notification ${n}: ${pending} of ${count} listeners had not received it after 30 s`)), 30_000);
        for (const s of sockets) {
          s.onListChanged = () => {
            if (s.listChanged !== n) return;
            last = performance.timeOrigin + performance.now();
            if (--pending === 0) {
              clearTimeout(timer);
              resolve(last);
            }
          };
        }
      });
      const sent = performance.timeOrigin + performance.now();
      const profileFile = profile ? path.join(os.tmpdir(), `mcp-express-fanout-${process.pid}-${n}.cpuprofile`) : undefined;
      const notified = await server.request('notify', 'notified', profileFile ? { profileFile } : {});
      if (notified.error) throw new Error(`the profiler failed: ${notified.error}`);
      if (profileFile) profileFiles.push(profileFile);
      const last = await received;
      const wrong = sockets.find((s) => s.listChanged !== n || s.closed);
      if (wrong) throw new Error(`listener ${wrong.index} saw ${wrong.listChanged} list_changed notifications after ${n} (closed: ${wrong.closed})`);
      rounds.push({ fromNotifyMs: last - notified.at, fromIpcSendMs: last - sent, notifyCallMs: notified.after - notified.at, serverSettledMs: notified.settledAt - notified.at, serverBusyMs: notified.busyMs });
      console.log(
        `  notification ${n}: last of ${count} listeners got it ${(last - notified.at).toFixed(1)} ms after notifyToolsListChanged() ` +
          `(server: the call ${(notified.after - notified.at).toFixed(1)} ms, its writes done after ${(notified.settledAt - notified.at).toFixed(1)} ms, event loop busy ${notified.busyMs === null ? '–' : notified.busyMs.toFixed(1)} ms)`,
      );
      await new Promise((resolve) => setTimeout(resolve, smoke ? 50 : 300));
    }
    const fromNotify = rounds.map((r) => r.fromNotifyMs);
    const result = {
      server: serverName,
      listeners: count,
      notifications,
      openSeconds,
      medianMs: kit.median(fromNotify),
      minMs: Math.min(...fromNotify),
      maxMs: Math.max(...fromNotify),
      medianNotifyCallMs: kit.median(rounds.map((r) => r.notifyCallMs)),
      /** When the server had written the notification to every stream (its event loop's next check phase). */
      medianServerSettledMs: kit.median(rounds.map((r) => r.serverSettledMs)),
      rounds,
    };
    console.log(`${serverName}: fan-out to ${count} listeners: median ${result.medianMs.toFixed(1)} ms (min ${result.minMs.toFixed(1)}, max ${result.maxMs.toFixed(1)})`);
    if (profileFiles.length) writeProfileSummary(profileFiles, count);
    return result;
  } finally {
    for (const s of sockets) s.socket.destroy();
    await kit.stopServer(server);
  }
}

/**
 * One listener on a raw socket: POSTs subscriptions/listen and resolves once the stream's acknowledgement arrived.
 * It then counts the list_changed notifications it receives (`listChanged`), calling `onListChanged` for each.
 */
function listen(port, index) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: `listen-${index}`,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      },
    },
  });
  const head =
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
    `MCP-Protocol-Version: ${MODERN_PROTOCOL_VERSION}\r\nMcp-Method: subscriptions/listen\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const state = { index, socket, listChanged: 0, closed: false, onListChanged: undefined };
    let acknowledged = false;
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(head + body));
    socket.on('data', (chunk) => {
      // Keep only a tail between chunks: enough to find a marker split across two of them.
      text += chunk;
      if (!acknowledged) {
        if (!text.includes(ACKNOWLEDGED)) return;
        if (!text.startsWith('HTTP/1.1 200') || !/content-type: text\/event-stream/i.test(text)) return reject(new Error(`listener ${index}: ${text.slice(0, 300)}`));
        acknowledged = true;
        text = text.slice(text.indexOf(ACKNOWLEDGED) + ACKNOWLEDGED.length);
        resolve(state);
      }
      for (let at = text.indexOf(LIST_CHANGED); at >= 0; at = text.indexOf(LIST_CHANGED)) {
        text = text.slice(at + LIST_CHANGED.length);
        state.listChanged++;
        state.onListChanged?.();
      }
      if (text.length > LIST_CHANGED.length) text = text.slice(-LIST_CHANGED.length);
    });
    socket.on('error', (error) => (acknowledged ? (state.closed = true) : reject(new Error(`listener ${index}: ${error.message}`))));
    socket.on('close', () => {
      state.closed = true;
      if (!acknowledged) reject(new Error(`listener ${index}: the connection closed before the acknowledgement: ${text.slice(0, 300)}`));
    });
  });
}

/** The profiles of the notifications after the first (warm), merged by summing their shares; written as profile-fanout.json. */
function writeProfileSummary(files, count) {
  const summaries = files.slice(files.length > 1 ? 1 : 0).map((file) => summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), kit.root, kit.ownDirs()));
  for (const file of files) fs.rmSync(file, { force: true });
  const summary = summaries[summaries.length - 1];
  printProfileSummary(summary, 20);
  const brief = {
    scenario: 'profile',
    target: 'fanout',
    note: `one notifications/tools/list_changed to ${count} subscriptions/listen streams, from the notify to the end of its writes`,
    date: new Date().toISOString(),
    machine: kit.machine(),
    busyMs: summary.busyMs,
    areas: summary.areas.slice(0, 12),
    bySelf: summary.bySelf.slice(0, 20),
    ownByTotal: summary.byTotal.slice(0, 20),
  };
  const file = path.join(kit.root, 'bench/results/profile-fanout.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(brief, null, 2)}\n`);
  console.log(`summary: ${path.relative(process.cwd(), file)}`);
}
