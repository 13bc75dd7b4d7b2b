'use strict';
// Summarises a `perf record` of one bench server (bench/run.js --native-profile): where its CPU went, kernel and
// native code included, which a V8 CPU profile cannot split (it shows a system call, or the V8 runtime under the
// JavaScript that called it, as one function). Reads `perf report` output; needs `perf` on PATH.

const { execFileSync } = require('node:child_process');
const path = require('node:path');

/**
 * Where a sampled symbol runs, from its DSO and name (the JIT map of --perf-basic-prof names JavaScript by
 * function and file); `own`: the directories of the mcp-express builds measured.
 */
function areaOf(dso, symbol, own) {
  if (dso === '[kernel.kallsyms]') return 'kernel (system calls, TCP on loopback, scheduling)';
  if (dso.startsWith('[JIT]')) {
    if (own.some((dir) => symbol.includes(` ${dir}${path.sep}`))) return 'JavaScript: mcp-express';
    if (/ node:/.test(symbol)) return 'JavaScript: node core (http, streams, events)';
    return 'JavaScript: other (zod, the bench server)';
  }
  if (dso === 'node' || dso.endsWith('/node')) {
    if (/Scaveng|MarkCompact|ConcurrentMarking|Sweeper|Evacuat|Heap::|MemoryAllocator|GCTracer|IncrementalMarking|MarkingVisitor|MinorGC/.test(symbol)) return 'V8: garbage collection';
    if (/^Builtins_/.test(symbol)) return 'V8: builtins (inline caches, calls, promises, allocation)';
    if (/Json|StringTable|Internaliz/.test(symbol)) return 'V8: JSON and string internalisation';
    if (/llhttp/.test(symbol)) return 'node: llhttp (HTTP parser)';
    if (/uv_|uv__/.test(symbol)) return 'node: libuv';
    if (/^(node::|std::)/.test(symbol)) return 'node: C++ (stream and HTTP parser bindings, async hooks)';
    return 'V8: runtime (allocation, property lookups, calls between C++ and JavaScript)';
  }
  return 'libc and other libraries';
}

/**
 * `perf report` of `file` as areas (share of samples) and the top symbols by self samples. `samples` is the
 * total; shares are fractions of it. `own`: the directories of the mcp-express builds measured.
 */
function summarizeNative(file, own) {
  const text = execFileSync('perf', ['report', '-i', file, '--no-children', '--sort', 'dso,sym', '-q', '-g', 'none', '-n', '--stdio'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const rows = [];
  for (const line of text.split('\n')) {
    // "    12.34%          1234  node               [.] Builtins_LoadIC"
    const match = /^\s*[\d.]+%\s+(\d+)\s+(\S+(?: tid \d+)?)\s+\[[.k]\]\s+(.*)$/.exec(line);
    if (match) rows.push({ samples: Number(match[1]), dso: match[2], symbol: match[3].trim() });
  }
  const samples = rows.reduce((sum, row) => sum + row.samples, 0);
  const areas = new Map();
  for (const row of rows) {
    const area = areaOf(row.dso, row.symbol, own);
    areas.set(area, (areas.get(area) ?? 0) + row.samples);
  }
  const share = (n) => (samples === 0 ? 0 : n / samples);
  return {
    samples,
    areas: [...areas].sort((a, b) => b[1] - a[1]).map(([area, n]) => ({ area, share: share(n) })),
    top: rows
      .sort((a, b) => b.samples - a.samples)
      .slice(0, 25)
      .map((row) => ({ symbol: row.symbol.replace(/^JS:[*~^]?/, '').replace(/\S*\/(dist\/cjs|node_modules)\//, '$1/'), dso: row.dso.startsWith('[JIT]') ? 'JIT' : row.dso, share: share(row.samples) })),
  };
}

/** True when `perf record` works here (installed, and allowed to sample a process). */
function perfWorks() {
  try {
    execFileSync('perf', ['record', '-q', '-e', 'cpu-clock', '-o', '/dev/null', '--', 'true'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Where a process started with `--perf-basic-prof` writes its map of JIT code (perf reads it to name JavaScript). */
function perfMapFile(pid) {
  return `/tmp/perf-${pid}.map`;
}

module.exports = { summarizeNative, perfWorks, perfMapFile };
