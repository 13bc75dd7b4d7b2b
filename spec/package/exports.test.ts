/**
 * The built package, imported by its name the way users import it: `require('mcp-express')` (CommonJS) and
 * `import ... from 'mcp-express'` (ESM), each in a child `node` process, each serving a real initialize request.
 *
 * The build runs the repository's own scripts/build.js, but in a scratch copy of the package (package.json,
 * tsconfigs, scripts, lib and a node_modules link), so that this suite neither deletes nor races with the
 * repository's dist/ that other suites or people may be using. Self-reference by name resolves through the
 * copied package.json's `name` and `exports`, exactly as it would in the repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };

let scratch: string;

/** Runs `node <args>` in the scratch package and returns its stdout. */
async function node(args: string[], timeout = 30_000): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, args, { cwd: scratch, timeout, env: { ...process.env, NODE_OPTIONS: '' } });
    return stdout;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`node ${args.slice(0, 2).join(' ')} failed: ${e.message}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
  }
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-package-'));
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'lib']) {
    fs.cpSync(path.join(root, entry), path.join(scratch, entry), { recursive: true });
  }
  // No tsconfig.examples.json in the copy: scripts/build.js then builds only the package (dist/esm, dist/cjs).
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  await node([path.join('scripts', 'build.js')], 170_000);
}, 180_000);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runtime (value) exports of lib/index.ts; type-only exports have no runtime presence. */
const VALUE_EXPORTS = [
  'ErrorCode',
  'InMemorySessionStore',
  'LATEST_SESSION_ERA_VERSION',
  'LocalSessionManager',
  'McpError',
  'McpServer',
  'RequestContext',
  'SESSION_ERA_VERSIONS',
  'SessionNotFoundError',
  'UriTemplate',
  'mcpMiddleware',
];

/**
 * The body of both child programs (after their own import/require of `mcp-express` and `express`): build a server
 * with the package's exports, mount the middleware on Express at 127.0.0.1, POST one initialize, call a tool in the
 * new session, print what came back as one JSON line, and shut down.
 */
const SERVE_ONE = String.raw`
const server = new McpServer({ name: 'packaged', version: '9.9.9' });
server.tool('echo', { description: 'Echo' }, (args) => ({ content: [{ type: 'text', text: 'echo ok' }] }));
const middleware = mcpMiddleware({ server });
const app = express();
app.use(middleware);
const http = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
const url = 'http://127.0.0.1:' + http.address().port + '/mcp';
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = async (body, extra = {}) => {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  const text = await response.text();
  const data = text.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => JSON.parse(line.slice(6)));
  return { status: response.status, type: response.headers.get('content-type'), sessionId: response.headers.get('mcp-session-id'), messages: data.length ? data : [JSON.parse(text)] };
};
const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'child', version: '1' } } });
const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } }, { 'mcp-session-id': init.sessionId, 'mcp-protocol-version': '2025-06-18' });
await middleware.close();
http.closeAllConnections();
await new Promise((resolve) => http.close(resolve));
const mod = pkgExports;
process.stdout.write(JSON.stringify({ init, call, exported: Object.keys(mod).sort(), errorCode: mod.ErrorCode, sessionEra: mod.SESSION_ERA_VERSIONS, isMcpError: new mod.McpError(-32602, 'x') instanceof Error }) + '\n');
`;

interface ChildReport {
  init: { status: number; type: string; sessionId: string | null; messages: Array<Record<string, unknown>> };
  call: { status: number; messages: Array<Record<string, unknown>> };
  exported: string[];
  errorCode: Record<string, number>;
  sessionEra: string[];
  isMcpError: boolean;
}

function checkReport(report: ChildReport): void {
  expect(report.exported).toEqual(expect.arrayContaining(VALUE_EXPORTS));
  expect(report.init.status).toBe(200);
  expect(report.init.type).toMatch(/^text\/event-stream/);
  expect(report.init.sessionId).toMatch(/^[\x21-\x7e]+$/);
  expect(report.init.messages).toEqual([
    {
      jsonrpc: '2.0',
      id: 1,
      result: expect.objectContaining({ protocolVersion: '2025-06-18', serverInfo: { name: 'packaged', version: '9.9.9' }, capabilities: expect.objectContaining({ tools: { listChanged: true } }) }),
    },
  ]);
  expect(report.call.status).toBe(200);
  expect(report.call.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo ok' }] } }]);
  expect(report.errorCode.InvalidParams).toBe(-32602);
  expect(report.sessionEra).toEqual(['2025-03-26', '2025-06-18', '2025-11-25']);
  expect(report.isMcpError).toBe(true);
}

describe('the built package', () => {
  test('build output has both module formats with their own package.json type markers and declarations', () => {
    for (const format of ['cjs', 'esm']) {
      expect(fs.existsSync(path.join(scratch, 'dist', format, 'index.js'))).toBe(true);
      expect(fs.existsSync(path.join(scratch, 'dist', format, 'index.d.ts'))).toBe(true);
    }
    expect(JSON.parse(fs.readFileSync(path.join(scratch, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    expect(JSON.parse(fs.readFileSync(path.join(scratch, 'dist/esm/package.json'), 'utf8'))).toEqual({ type: 'module' });
  });

  test(`CommonJS: require('${pkg.name}') resolves to dist/cjs and serves an initialize request`, async () => {
    const program = `
      const pkgExports = require('${pkg.name}');
      const { McpServer, mcpMiddleware } = pkgExports;
      const express = require('express');
      if (!require.resolve('${pkg.name}').endsWith(require('node:path').join('dist', 'cjs', 'index.js'))) throw new Error('resolved to ' + require.resolve('${pkg.name}'));
      (async () => { ${SERVE_ONE} })().catch((error) => { console.error(error); process.exit(1); });
    `;
    const stdout = await node(['-e', program]);
    checkReport(JSON.parse(stdout.trim().split('\n').pop()!) as ChildReport);
  });

  test(`ESM: import { McpServer, mcpMiddleware } from '${pkg.name}' resolves to dist/esm and serves an initialize request`, async () => {
    const program = `
      import { McpServer, mcpMiddleware } from '${pkg.name}';
      import * as pkgExports from '${pkg.name}';
      import express from 'express';
      const resolved = import.meta.resolve('${pkg.name}');
      if (!resolved.endsWith('/dist/esm/index.js')) throw new Error('resolved to ' + resolved);
      ${SERVE_ONE}
    `;
    const stdout = await node(['--input-type=module', '-e', program]);
    checkReport(JSON.parse(stdout.trim().split('\n').pop()!) as ChildReport);
  });

  test('CommonJS and ESM builds export the same names', async () => {
    const cjs = await node(['-e', `process.stdout.write(JSON.stringify(Object.keys(require('${pkg.name}')).sort()))`]);
    const esm = await node(['--input-type=module', '-e', `import * as m from '${pkg.name}'; process.stdout.write(JSON.stringify(Object.keys(m).sort()))`]);
    expect(JSON.parse(esm)).toEqual(JSON.parse(cjs));
    expect(JSON.parse(cjs)).toEqual(expect.arrayContaining(VALUE_EXPORTS));
  });

  test(`'${pkg.name}/redis' resolves in both formats to the Redis stores, and the root entry never loads the driver`, async () => {
    const cjs = await node(['-e', `
      const redisStores = require('${pkg.name}/redis');
      if (!require.resolve('${pkg.name}/redis').endsWith(require('node:path').join('dist', 'cjs', 'redis', 'index.js'))) throw new Error('resolved to ' + require.resolve('${pkg.name}/redis'));
      require('${pkg.name}');
      const driverLoaded = Object.keys(require.cache).some((file) => /node_modules[\\/]@?redis/.test(file));
      process.stdout.write(JSON.stringify({ names: Object.keys(redisStores).sort(), driverLoaded }));
    `]);
    expect(JSON.parse(cjs)).toEqual({ names: expect.arrayContaining(['RedisEventStore', 'RedisSessionStore']), driverLoaded: false });
    const esm = await node(['--input-type=module', '-e', `
      import * as redisStores from '${pkg.name}/redis';
      const resolved = import.meta.resolve('${pkg.name}/redis');
      if (!resolved.endsWith('/dist/esm/redis/index.js')) throw new Error('resolved to ' + resolved);
      process.stdout.write(JSON.stringify(Object.keys(redisStores).sort()));
    `]);
    expect(JSON.parse(esm)).toEqual(expect.arrayContaining(['RedisEventStore', 'RedisSessionStore']));
  });

  test(`'${pkg.name}/testing' resolves in both formats to the store contract suites, which register their tests with the runner's globals`, async () => {
    // Stand-in runner globals: record each test's full name; before they exist, a suite fails with a clear error.
    const body = `
      let missing;
      try { testing.describeSessionStoreContract('Early', () => ({})); } catch (error) { missing = error.message; }
      const names = [];
      const path = [];
      Object.assign(globalThis, {
        describe: (name, define) => { path.push(name); define(); path.pop(); },
        test: (name) => names.push([...path, name].join(' > ')),
        beforeEach() {}, afterEach() {}, expect() {},
      });
      testing.describeEventStoreContract('Mine', () => ({}));
      testing.describeSessionStoreContract('Mine', () => ({}), { ttl: { ttlMs: 1000, create: () => ({}), elapse: async () => {} } });
      process.stdout.write(JSON.stringify({ names: Object.keys(testing).sort(), missing, tests: names }));
    `;
    const expected = {
      names: expect.arrayContaining(['describeEventStoreContract', 'describeSessionStoreContract']),
      missing: expect.stringMatching(/test globals describe, test, beforeEach, afterEach, expect are not defined.*jest test file/),
      tests: expect.arrayContaining([
        'EventStore contract: Mine > replay yields the later events of that stream only, in order, with their original ids',
        'SessionStore contract: Mine > store then load gives back the same data, not a shared object',
        'SessionStore contract: Mine > with ttlMs 1000 > every write restarts the TTL',
      ]),
    };
    const cjs = await node(['-e', `const testing = require('${pkg.name}/testing');\n${body}`]);
    const cjsReport = JSON.parse(cjs);
    expect(cjsReport).toEqual(expected);
    // Without a ttl option the TTL checks are not registered.
    expect(cjsReport.tests.filter((name: string) => name.startsWith('EventStore contract: Mine > with ttlMs'))).toEqual([]);
    const esm = await node(['--input-type=module', '-e', `import * as testing from '${pkg.name}/testing';\n${body}`]);
    expect(JSON.parse(esm)).toEqual(expected);
  });

  test(`'${pkg.name}/package.json' is exported`, async () => {
    const stdout = await node(['-e', `process.stdout.write(require('${pkg.name}/package.json').version)`]);
    expect(stdout).toBe(pkg.version);
  });

  test('TypeScript consumers get the declarations through the exports map (node16 resolution, both formats)', async () => {
    const consumer = (kind: 'import' | 'require') => `
      ${kind === 'import' ? `import { McpServer, mcpMiddleware, type McpMiddlewareOptions, type CallToolResult } from '${pkg.name}';` : `import mcp = require('${pkg.name}');\nconst { McpServer, mcpMiddleware } = mcp;\ntype McpMiddlewareOptions = mcp.McpMiddlewareOptions;\ntype CallToolResult = mcp.CallToolResult;`}
      const server = new McpServer({ name: 'typed', version: '1.0.0' });
      const result: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };
      server.tool('t', {}, () => result);
      const options: McpMiddlewareOptions = { server, path: '/mcp' };
      const handler = mcpMiddleware(options);
      const closing: Promise<void> = handler.close();
      void closing;
    `;
    const dir = path.join(scratch, 'consumer');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'esm.mts'), consumer('import'));
    fs.writeFileSync(path.join(dir, 'cjs.cts'), consumer('require'));
    const tsc = require.resolve('typescript/bin/tsc');
    await node([tsc, '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'ES2022', '--skipLibCheck', '--types', 'node', path.join('consumer', 'esm.mts'), path.join('consumer', 'cjs.cts')], 120_000);
  }, 130_000);
});
