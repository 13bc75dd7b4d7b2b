/**
 * A local Redis Cluster of 3 masters for a test file: three `redis-server --cluster-enabled yes` processes on spare
 * ports of 127.0.0.1, joined with `redis-cli --cluster create`, stopped and removed in afterAll.
 *
 * ```ts
 * describeWithRedisCluster('the stores on a cluster', (cluster) => {
 *   test('…', async () => { const client = createCluster({ rootNodes: cluster().rootNodes }); … });
 * });
 * ```
 * Where `redis-server`/`redis-cli` are missing the tests are skipped with a notice (a failure under
 * `REQUIRE_REDIS=1`, as in CI).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { describeWithRedisBinaries, redisTempDir, startRedisServer, type RedisServerProcess } from './redis-server.js';

export interface LocalRedisCluster {
  readonly nodes: readonly RedisServerProcess[];
  /** For `createCluster({ rootNodes })`. */
  readonly rootNodes: Array<{ url: string }>;
  stop(): Promise<void>;
}

const MASTERS = 3;

function redisCli(args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-cli ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Starts the nodes, creates the cluster and waits until every node reports `cluster_state:ok`. */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = redisTempDir();
  const nodes: RedisServerProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let n = 0; n < MASTERS; n++) {
      // Each node names its own config file after its port (known only once a free port is found).
      const node = await startRedisServer({ dir, args: ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${n}.conf`, '--appendonly', 'no'] });
      nodes.push(node);
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await redisCli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const node of nodes) await waitForClusterOk(node.port);
    return { nodes, rootNodes: nodes.map((node) => ({ url: node.url })), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForClusterOk(port: number): Promise<void> {
  let info = '';
  for (let attempt = 0; attempt < 100; attempt++) {
    info = await redisCli(['-p', String(port), 'cluster', 'info'], 5000);
    if (/cluster_state:ok/.test(info)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`cluster node 127.0.0.1:${port} never reported cluster_state:ok:\n${info}`);
}

/**
 * Registers `body`'s tests around one local cluster for the whole file (started in beforeAll, stopped in
 * afterAll); `cluster()` gives it to tests and hooks.
 */
export function describeWithRedisCluster(what: string, body: (cluster: () => LocalRedisCluster) => void): void {
  describeWithRedisBinaries(what, () => {
    let cluster: LocalRedisCluster | undefined;
    beforeAll(async () => {
      cluster = await startRedisCluster();
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
    }, 30_000);
    describe(what, () =>
      body(() => {
        if (!cluster) throw new Error('the local Redis cluster did not start (see the beforeAll error)');
        return cluster;
      }),
    );
  });
}
