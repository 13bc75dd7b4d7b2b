/**
 * The package as users get it: `npm pack` (after the repository's own build, in a scratch copy), installed from the
 * tarball into a fresh folder with express, zod and redis from the registry, then
 * - the tarball holds the ESM and CommonJS builds, README, docs and LICENSE: no examples, no source maps (their
 *   sources are not shipped);
 * - a consumer (spec/package/consumer) compiles under strict + exactOptionalPropertyTypes + skipLibCheck: false,
 *   against the ESM declarations (consumer.mts) and the CommonJS ones (consumer.cts), and rejects what it must
 *   (@ts-expect-error lines: structuredContent typed from outputSchema, URI-template variables typed);
 * - the runtime imports work from ESM (`import`) and CommonJS (`require`).
 * Needs the npm registry (set SKIP_REGISTRY_TESTS=1 to skip where it is unreachable).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const fixture = path.join(__dirname, 'consumer');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const skip = process.env.SKIP_REGISTRY_TESTS === '1';

let scratch: string;
let consumer: string;
let packedFiles: string[];

async function exec(file: string, args: string[], cwd: string, timeout: number): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd, timeout, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(file)} ${args.slice(0, 3).join(' ')} failed: ${e.message}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
  }
}

(skip ? describe.skip : describe)('the packed tarball', () => {
  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-pack-'));
    const pkg = path.join(scratch, 'package');
    fs.mkdirSync(pkg);
    for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.examples.json', 'scripts', 'lib', 'examples', 'docs', 'README.md', 'LICENSE']) {
      if (fs.existsSync(path.join(root, entry))) fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true });
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
    // The full build, examples included: the tarball must leave dist/examples out.
    await exec(process.execPath, [path.join('scripts', 'build.js')], pkg, 240_000);
    const packed = JSON.parse(await exec(npm, ['pack', '--json', '--pack-destination', scratch], pkg, 60_000)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    packedFiles = packed[0].files.map((file) => file.path);
    const tarball = path.join(scratch, path.basename(packed[0].filename));

    consumer = path.join(scratch, 'consumer');
    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
    for (const file of fs.readdirSync(fixture)) fs.copyFileSync(path.join(fixture, file), path.join(consumer, file));
    // One consumer, compiled twice: as consumer.mts against the ESM declarations, as consumer.cts against the CommonJS.
    fs.copyFileSync(path.join(fixture, 'consumer.mts'), path.join(consumer, 'consumer.cts'));
    await exec(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, 'express@5', 'zod@4', 'redis@5', '@types/express@5', '@types/node@20'], consumer, 240_000);
  }, 600_000);

  afterAll(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  test('ships the ESM and CommonJS builds, README, docs and LICENSE, and nothing else', () => {
    const outside = packedFiles.filter((file) => !/^dist\/(esm|cjs)\//.test(file));
    expect(outside.sort()).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'docs/getting-started.md']));
    expect(outside.filter((file) => !/^(LICENSE|README\.md|package\.json|docs\/[^/]+\.md)$/.test(file))).toEqual([]);
    expect(packedFiles.filter((file) => file.startsWith('dist/examples'))).toEqual([]);
    expect(packedFiles).toContain('dist/esm/index.d.ts');
    expect(packedFiles).toContain('dist/cjs/index.js');
  });

  test('ships no source maps (their lib/*.ts sources are not in the tarball)', () => {
    expect(packedFiles.filter((file) => file.endsWith('.map'))).toEqual([]);
    const installed = path.join(consumer, 'node_modules', 'mcp-express', 'dist', 'esm', 'index.js');
    expect(fs.readFileSync(installed, 'utf8')).not.toMatch(/sourceMappingURL/);
  });

  test('the declarations compile under strict + exactOptionalPropertyTypes + skipLibCheck: false (ESM and CommonJS)', async () => {
    const tsc = require.resolve('typescript/bin/tsc');
    // Fails on any error, an unused @ts-expect-error included.
    await expect(exec(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer, 120_000)).resolves.toBe('');
  }, 130_000);

  test.each(['runtime.mjs', 'runtime.cjs'])('%s imports every entry point at run time', async (file) => {
    const out = JSON.parse(await exec(process.execPath, [file], consumer, 30_000));
    expect(out).toEqual({
      kind: file.endsWith('.mjs') ? 'esm' : 'cjs',
      loopback: ['localhost', '127.0.0.1', '[::1]'],
      handler: 'function',
      errorHandlerArity: 4,
      cors: 'function',
      redis: 'function',
      testing: 'function',
    });
  });
});
