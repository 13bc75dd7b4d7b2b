/**
 * The built example (`dist/examples/everything/main.js`) as child processes on spare ports of 127.0.0.1: the
 * instances of one deployment sharing a Redis, each a real process that can be sent real signals. Every process a
 * test file starts is SIGKILLed by `killAll()` (call it in afterAll), and when the test process ends (by the kernel
 * through `setpriv --pdeathsig` where util-linux has it, else by an exit listener).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LiveResponse } from '../helpers/http-helpers.js';
import { freePort, withParentDeathSignal } from '../helpers/redis-server.js';

const ROOT = path.join(__dirname, '..', '..');
export const EXAMPLE_MAIN = path.join(ROOT, 'dist', 'examples', 'everything', 'main.js');

/** Throws a clear error when the example has not been built (`.ci/run` builds before `npm test`). */
export function assertExampleBuilt(): void {
  if (!fs.existsSync(EXAMPLE_MAIN)) throw new Error(`${path.relative(ROOT, EXAMPLE_MAIN)} is missing: run npm run build first`);
}

export interface InstanceOptions {
  /** `REDIS_URL` of the instance (ignored with `redisClusterNodes`). */
  redisUrl: string;
  /** `REDIS_CLUSTER_NODES` (`host:port,…`): the instance uses a Redis Cluster instead. */
  redisClusterNodes?: string;
  /** `REDIS_KEY_PREFIX`: keeps this test run's keys and bus channels apart from any other's. */
  keyPrefix: string;
  /** `LEASE_TTL_MS`. Defaults to the example's (10000). */
  leaseTtlMs?: number;
  /** `LEASE_DELAY_MS`. Defaults to the example's (10). */
  leaseDelayMs?: number;
  /** `DRAIN_TIMEOUT_MS`. Defaults to the example's (10000). */
  drainTimeoutMs?: number;
  /** A name for messages. Defaults to the port. */
  name?: string;
  /** How long to wait for the "listening" line. Defaults to 30000 (a busy machine starts node slowly). */
  startTimeoutMs?: number;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One running example process. */
export interface ExampleInstance {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Whether the process has exited. */
  readonly hasExited: boolean;
  /** Everything the process wrote to stdout and stderr (the last 20000 characters). */
  output(): string;
  /** Sends `signal` to the process (nothing if it has exited). */
  signal(signal: NodeJS.Signals): void;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** Starts one example process on a spare port and waits until it listens (another port if that one was taken). */
export async function startInstance(options: InstanceOptions): Promise<ExampleInstance> {
  assertExampleBuilt();
  installExitHook();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), options);
    } catch (error) {
      if (attempt === 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

function startOn(port: number, options: InstanceOptions): Promise<ExampleInstance> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: options.keyPrefix,
  };
  delete env.REDIS_CLUSTER_NODES;
  if (options.redisClusterNodes !== undefined) {
    delete env.REDIS_URL;
    env.REDIS_CLUSTER_NODES = options.redisClusterNodes;
  }
  delete env.MCP_LEGACY_SESSIONS;
  if (options.leaseTtlMs !== undefined) env.LEASE_TTL_MS = String(options.leaseTtlMs);
  if (options.leaseDelayMs !== undefined) env.LEASE_DELAY_MS = String(options.leaseDelayMs);
  if (options.drainTimeoutMs !== undefined) env.DRAIN_TIMEOUT_MS = String(options.drainTimeoutMs);
  // Under `setpriv --pdeathsig` (which execs node: same pid) the kernel kills the instance should jest end first.
  const command = withParentDeathSignal ? ['setpriv', '--pdeathsig', 'KILL', process.execPath, EXAMPLE_MAIN] : [process.execPath, EXAMPLE_MAIN];
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const name = options.name ?? String(port);
  let output = '';
  let hasExited = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      hasExited = true;
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const instance: ExampleInstance = {
    name,
    port,
    pid: child.pid!,
    exited,
    get hasExited() {
      return hasExited;
    },
    output: () => output,
    signal: (signal) => {
      if (!hasExited) child.kill(signal);
    },
  };
  return new Promise<ExampleInstance>((resolve, reject) => {
    let listening = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`instance ${name} did not print its "listening" line within ${options.startTimeoutMs ?? 30_000} ms; output:\n${output}`));
    }, options.startTimeoutMs ?? 30_000);
    const take = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      if (!listening && output.includes(' listening on http://')) {
        listening = true;
        clearTimeout(timer);
        resolve(instance);
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    void exited.then((exit) => {
      if (listening) return;
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited (${exit.code ?? exit.signal}) before listening; output:\n${output}`));
    });
  });
}

/** SIGKILLs every example process still running (afterAll), and waits until they have exited. */
export async function killAll(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** SIGTERMs `instance` and waits for it to exit (SIGKILL after `graceMs`); resolves with how it exited. */
export async function stopInstance(instance: ExampleInstance, graceMs = 15_000): Promise<Exit> {
  instance.signal('SIGTERM');
  const killer = setTimeout(() => instance.signal('SIGKILL'), graceMs);
  const exit = await instance.exited;
  clearTimeout(killer);
  return exit;
}

/**
 * A pool of example instances for the test file: `start` runs for each name in `beforeAll`, every live response in
 * `open` is closed after each test, and the instances are stopped (then any survivor killed) in `afterAll`.
 */
export function usePool(names: readonly string[], start: (name: string) => Promise<ExampleInstance>): { pool: ExampleInstance[]; open: LiveResponse[] } {
  const pool: ExampleInstance[] = [];
  const open: LiveResponse[] = [];
  beforeAll(async () => {
    assertExampleBuilt();
    for (const name of names) pool.push(await start(name));
  }, 120_000);
  afterEach(() => {
    for (const live of open.splice(0)) live.close();
  });
  afterAll(async () => {
    await Promise.all(pool.map((instance) => stopInstance(instance)));
    await killAll();
  }, 60_000);
  return { pool, open };
}
