import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import readline from 'node:readline';

/** One running instance of the "everything" example. */
export interface Instance {
  /** 1-based, as in the log prefixes and `X-Cluster-Instance`. */
  number: number;
  host: string;
  port: number;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process has exited. */
  exited: Promise<number | string>;
  /** False once the process exited. */
  up: boolean;
}

export interface StartInstancesOptions {
  /** The program each instance runs (`dist/examples/everything/main.js`). */
  main: string;
  count: number;
  /** The first instance's port; the others take the ports after it. */
  firstPort: number;
  host: string;
  /** Environment of every instance besides `PORT` and `HOST` (REDIS_URL, DRAIN_TIMEOUT_MS, LEASE_TTL_MS…). */
  env: NodeJS.ProcessEnv;
  /** Called when an instance exits (on its own, killed, or after a drain). */
  onExit?(instance: Instance, code: number | string): void;
}

/**
 * Starts `count` instances as child processes on consecutive ports, each line of their output prefixed with
 * `[instance n]`; `waitUntilListening` tells when they accept connections.
 */
export function spawnInstances(options: StartInstancesOptions): Instance[] {
  const instances: Instance[] = [];
  for (let i = 0; i < options.count; i++) {
    const port = options.firstPort + i;
    const child = spawn(process.execPath, [options.main], {
      env: { ...process.env, ...options.env, PORT: String(port), HOST: options.host },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const instance: Instance = { number: i + 1, host: options.host, port, process: child, up: true, exited: undefined as unknown as Promise<number | string> };
    instance.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        instance.up = false;
        const result = code ?? signal ?? 'unknown';
        options.onExit?.(instance, result);
        resolve(result);
      });
    });
    prefixLines(child, `[instance ${instance.number}] `);
    instances.push(instance);
  }
  return instances;
}

/**
 * Resolves once every instance accepts connections; rejects with the reason when one exits first or does not come
 * up within `timeoutMs` (default 30 s).
 */
export async function waitUntilListening(instances: Instance[], timeoutMs = 30_000): Promise<void> {
  await Promise.all(instances.map((instance) => waitForInstance(instance, timeoutMs)));
}

/** Sends `signal` to every instance still running and resolves once all have exited. */
export async function stopInstances(instances: Instance[], signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  for (const instance of instances) if (instance.up) instance.process.kill(signal);
  await Promise.all(instances.map((instance) => instance.exited));
}

function prefixLines(child: ChildProcess, prefix: string): void {
  if (child.stdout) readline.createInterface({ input: child.stdout }).on('line', (line) => process.stdout.write(`${prefix}${line}\n`));
  if (child.stderr) readline.createInterface({ input: child.stderr }).on('line', (line) => process.stderr.write(`${prefix}${line}\n`));
}

/** Polls the instance's port until it accepts a connection; rejects if the process exits first or time runs out. */
async function waitForInstance(instance: Instance, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!instance.up) throw new Error(`instance ${instance.number} (port ${instance.port}) exited before it listened; see its output above`);
    if (await accepts(instance.host, instance.port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`instance ${instance.number} did not listen on port ${instance.port} within ${timeoutMs} ms`);
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    // An attempt that gets no answer at all counts as a no; the next one starts afresh.
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}
