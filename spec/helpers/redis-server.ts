/**
 * `redis-server` processes a test starts and stops itself, on spare ports of 127.0.0.1: a lone server to stop and
 * restart (fault tests) or the nodes of a local cluster (`redis-cluster.ts`). Every process is stopped by
 * `stop()`, and killed when the test process ends should a test never get there (by the kernel, through
 * `setpriv --pdeathsig`, where util-linux has it; else by an exit listener).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Why `redis-server` / `redis-cli` cannot be run here, or undefined when both can. */
export function redisBinariesMissing(): string | undefined {
  for (const binary of ['redis-server', 'redis-cli']) {
    try {
      execFileSync(binary, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    } catch (error) {
      return `${binary} cannot be run (${(error as Error).message})`;
    }
  }
  return undefined;
}

/**
 * Registers the tests of `body`, or, where `redis-server`/`redis-cli` are missing, a skipped test with a notice
 * (a failing one under `REQUIRE_REDIS=1`, as in CI).
 */
export function describeWithRedisBinaries(what: string, body: () => void): void {
  const missing = redisBinariesMissing();
  if (missing === undefined) return body();
  if (process.env.REQUIRE_REDIS === '1') {
    test(`redis-server and redis-cli are installed (REQUIRE_REDIS=1, needed by ${what})`, () => {
      throw new Error(missing);
    });
  } else {
    console.warn(`${missing}: skipping ${what}; set REQUIRE_REDIS=1 to make this an error`);
    test.skip(`${what} (${missing})`, () => {});
  }
}

/** A port nothing listens on right now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A temporary directory for the files of redis-server processes. */
export function redisTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-express-redis-'));
}

/** Whether `PING` on 127.0.0.1:`port` answers `+PONG` (not `-LOADING`) within `timeoutMs`. */
export function answersPing(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Whether `setpriv --pdeathsig` (util-linux) is there: the kernel then kills a server when the test process ends,
 * however it ends. jest's sandboxed `process` does not always deliver 'exit' to a test file's listener.
 */
export const withParentDeathSignal = (() => {
  try {
    execFileSync('setpriv', ['--pdeathsig', 'KILL', 'true'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
})();

/** Kills what is still running when the test process exits (a test that failed before its afterAll). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export interface RedisServerProcess {
  readonly port: number;
  readonly url: string;
  /** SIGTERM, then waits for the process to exit (SIGKILL after 10 s). Resolves at once if it is not running. */
  stop(): Promise<void>;
  /** Starts the server again on the same port, with the same arguments and directory. */
  restart(): Promise<void>;
  /** Stops the server and removes the directory it made (not one given as `dir`). */
  dispose(): Promise<void>;
}

export interface RedisServerOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Working directory of the server (AOF, RDB, cluster config files). Defaults to a new temporary directory. */
  dir?: string;
  /** Arguments after the common ones (`--port`, `--bind 127.0.0.1`, `--dir`, `--save ''`, `--daemonize no`). */
  args?: string[];
}

/** Starts a `redis-server` and waits until it answers PING (on another free port should the first be taken meanwhile). */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  installExitHook();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(options.port ?? (await freePort()), options);
    } catch (error) {
      if (options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startOn(port: number, options: RedisServerOptions): Promise<RedisServerProcess> {
  const dir = options.dir ?? redisTempDir();
  const removeDir = () => {
    if (options.dir === undefined) fs.rmSync(dir, { recursive: true, force: true });
  };
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--protected-mode', 'no', ...(options.args ?? [])];
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async (): Promise<void> => {
    output = '';
    const started = withParentDeathSignal ? spawn('setpriv', ['--pdeathsig', 'KILL', 'redis-server', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    running.add(started);
    started.stdout!.on('data', (chunk) => (output = (output + chunk.toString()).slice(-4000)));
    started.stderr!.on('data', (chunk) => (output = (output + chunk.toString()).slice(-4000)));
    // A server a failed test left running must not keep jest alive: the exit hook kills it.
    started.unref();
    for (const stream of [started.stdout, started.stderr] as Array<{ unref?: () => void } | null>) stream?.unref?.();
    const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    started.once('exit', () => running.delete(started));
    for (let attempt = 0; attempt < 200; attempt++) {
      if (started.exitCode !== null || started.signalCode !== null) break;
      if (await answersPing(port, 500)) return;
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    started.kill('SIGKILL');
    await exited;
    throw new Error(`redis-server on port ${port} did not start: ${output.trim()}`);
  };

  const stop = async (): Promise<void> => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    current.kill('SIGTERM');
    const killer = setTimeout(() => current.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };

  try {
    await launch();
  } catch (error) {
    removeDir();
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    dispose: async () => {
      await stop();
      removeDir();
    },
  };
}
