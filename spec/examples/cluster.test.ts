/**
 * examples/cluster: the round-robin proxy on its own (in this process, against plain HTTP servers), then the whole
 * example as `npm run example:cluster` runs it (the built `dist/examples/cluster/main.js`, three instances of the
 * "everything" example on Redis), driven through the proxy by the official SDK v1 client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startRoundRobinProxy, STATS_PATH, type RoundRobinProxy } from '../../examples/cluster/round-robin-proxy';
import { describeWithRedis, redisUrl } from '../helpers/redis.js';
import { freePort } from '../helpers/redis-server.js';

const ROOT = path.join(__dirname, '..', '..');

/** The first of `count` consecutive ports of 127.0.0.1 that are free now (the instances take consecutive ports). */
async function freeConsecutivePorts(count: number): Promise<number> {
  const bindable = (port: number) =>
    new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
  for (;;) {
    const first = await freePort();
    if (first + count > 65535) continue;
    let all = true;
    for (let port = first + 1; port < first + count && all; port++) all = await bindable(port);
    if (all) return first;
  }
}
const CLUSTER_MAIN = path.join(ROOT, 'dist', 'examples', 'cluster', 'main.js');

describe('the round-robin proxy', () => {
  /** What a plain upstream saw of each request. */
  interface Seen {
    upstream: number;
    host: string | undefined;
    forwardedHost: string | undefined;
    body: string;
  }
  const seen: Seen[] = [];
  const upstreams: Server[] = [];
  let proxy: RoundRobinProxy | undefined;
  /** An SSE response an upstream holds open until the test lets it go on. */
  let heldStream: { res: ServerResponse; ended: boolean } | undefined;

  async function startUpstream(number: number): Promise<number> {
    const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ upstream: number, host: req.headers.host, forwardedHost: req.headers['x-forwarded-host'] as string | undefined, body });
        if (req.url === '/sse') {
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          res.write('data: first\n\n');
          heldStream = { res, ended: false };
          return;
        }
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`upstream ${number}`);
      });
    });
    upstreams.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  afterEach(async () => {
    heldStream?.res.destroy();
    heldStream = undefined;
    await proxy?.close();
    proxy = undefined;
    for (const server of upstreams.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    seen.length = 0;
  });

  test('each request goes to the next instance, with Host naming the instance and the body passed on', async () => {
    const ports = [await startUpstream(1), await startUpstream(2), await startUpstream(3)];
    proxy = await startRoundRobinProxy({ upstreams: ports.map((port) => ({ host: '127.0.0.1', port })), port: 0 });
    const answers: string[] = [];
    const servedBy: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/mcp`, { method: 'POST', body: `request ${i}`, headers: { 'Content-Type': 'application/json' } });
      answers.push(await res.text());
      servedBy.push(res.headers.get('x-cluster-instance'));
    }
    expect(answers).toEqual(['upstream 1', 'upstream 2', 'upstream 3', 'upstream 1']);
    expect(servedBy).toEqual(['1', '2', '3', '1']);
    expect(seen.map((each) => each.body)).toEqual(['request 0', 'request 1', 'request 2', 'request 3']);
    expect(seen.map((each) => each.host)).toEqual([...ports, ports[0]].map((port) => `127.0.0.1:${port}`));
    expect(seen[0].forwardedHost).toBe(new URL(proxy.url).host);
    const stats = await (await fetch(`${proxy.url}${STATS_PATH}`)).json();
    expect(stats).toMatchObject({ forwarded: [2, 1, 1], badGateway: 0 });
  });

  test('an SSE response reaches the client event by event, while the instance still holds it open', async () => {
    proxy = await startRoundRobinProxy({ upstreams: [{ host: '127.0.0.1', port: await startUpstream(1) }], port: 0 });
    const res = await fetch(`${proxy.url}/sse`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // A proxy that buffered would deliver nothing until the upstream ends, which it does only after this read.
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
    expect(text).toBe('data: first\n\n');
    expect(heldStream?.ended).toBe(false);
    heldStream!.res.end('data: second\n\n');
    heldStream!.ended = true;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(text).toBe('data: first\n\ndata: second\n\n');
  });

  test('an instance that refuses connections is skipped (nothing reached it); with none left the answer is 502', async () => {
    const refusing = await freePort(); // nothing listens there
    const live = await startUpstream(2);
    proxy = await startRoundRobinProxy({ upstreams: [{ host: '127.0.0.1', port: refusing }, { host: '127.0.0.1', port: live }], port: 0 });
    const first = await fetch(`${proxy.url}/mcp`, { method: 'POST', body: 'retried' });
    expect([first.status, await first.text(), first.headers.get('x-cluster-instance')]).toEqual([200, 'upstream 2', '2']);
    expect(seen.map((each) => each.body)).toEqual(['retried']);

    await proxy.close();
    proxy = await startRoundRobinProxy({ upstreams: [{ host: '127.0.0.1', port: refusing }], port: 0 });
    const none = await fetch(`${proxy.url}/mcp`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(502);
    expect(await none.text()).toMatch(/no instance of the cluster accepted the connection/);
  });
});

describeWithRedis('the cluster example', (redis) => describe('the cluster example (npm run example:cluster)', () => {
  let cluster: ChildProcess | undefined;
  let output = '';
  let proxyUrl: string;
  let pids: number[] = [];
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let client: Client | undefined;
  /**
   * Each POST the client sent (the JSON-RPC method, or "response") and which instance answered it
   * (X-Cluster-Instance), recorded when it is sent: its answer may come after the call it belongs to has returned.
   */
  const posts: Array<{ what: string; instance: Promise<string | null> }> = [];

  /** Resolves with the first match of `pattern` in the cluster's output; rejects if the cluster exits first. */
  function waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = output.match(pattern);
        if (match) {
          cleanup();
          resolve(match);
        }
      };
      const onExit = () => {
        cleanup();
        reject(new Error(`the cluster exited before printing ${pattern}:\n${output}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`the cluster did not print ${pattern} within ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        cluster?.stdout?.off('data', check);
        cluster?.off('exit', onExit);
      };
      cluster?.stdout?.on('data', check);
      cluster?.once('exit', onExit);
      check();
    });
  }

  beforeAll(async () => {
    if (!fs.existsSync(CLUSTER_MAIN)) throw new Error(`${path.relative(ROOT, CLUSTER_MAIN)} is missing: run npm run build first`);
    const instancePort = await freeConsecutivePorts(3);
    cluster = spawn(process.execPath, [CLUSTER_MAIN], {
      env: {
        ...process.env,
        PORT: '0', // the proxy takes any free port and prints it
        HOST: '127.0.0.1',
        INSTANCE_PORT: String(instancePort),
        INSTANCES: '3',
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: redis.runPrefix,
        DRAIN_TIMEOUT_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cluster.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    cluster.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => cluster!.once('exit', (code, signal) => resolve({ code, signal })));
    await waitForOutput(/\[cluster\] instance 3: pid \d+/, 60_000);
    proxyUrl = (output.match(/round-robin proxy \(no affinity\) on (http:\/\/\S+)\/mcp/) ?? [])[1];
    pids = [...output.matchAll(/\[cluster\] instance \d: pid (\d+)/g)].map((match) => Number(match[1]));
  }, 90_000);

  afterAll(async () => {
    await client?.close();
    // Only if a test failed before stopping it: nothing is left running.
    if (cluster && cluster.exitCode === null && cluster.signalCode === null) cluster.kill('SIGKILL');
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // exited already
      }
    }
    if (cluster) await exited;
  });

  test('it prints where the proxy listens and the three instances it runs', () => {
    expect(proxyUrl).toBe(`http://127.0.0.1:${new URL(proxyUrl).port}`);
    expect(pids).toHaveLength(3);
    expect(new Set(pids).size).toBe(3);
  });

  test('the SDK v1 client is served through the proxy: tools, slow_count with progress, an elicitation answered on another instance', async () => {
    const recordingFetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = fetch(url, init);
      if (init?.method === 'POST' && typeof init.body === 'string') {
        const message = JSON.parse(init.body) as { method?: string };
        posts.push({ what: message.method ?? 'response', instance: response.then((res) => res.headers.get('x-cluster-instance')) });
      }
      return response;
    };
    client = new Client({ name: 'cluster-example-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxyUrl}/mcp`), { fetch: recordingFetch }));

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['slow_count', 'test_elicitation']));

    const progress: number[] = [];
    const counted = await client.callTool({ name: 'slow_count', arguments: { n: 3, intervalMs: 20 } }, undefined, { onprogress: (update) => progress.push(update.progress) });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(progress).toEqual([1, 2, 3]);

    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(elicited.content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }]);
    // The answer to the elicitation reached the instance running the tool through the bus, from another instance.
    const call = [...posts].reverse().find((post) => post.what === 'tools/call')!;
    const answer = [...posts].reverse().find((post) => post.what === 'response')!;
    const [callInstance, answerInstance] = await Promise.all([call.instance, answer.instance]);
    expect(callInstance).toMatch(/^[123]$/);
    expect(answerInstance).toMatch(/^[123]$/);
    expect(answerInstance).not.toBe(callInstance);
  });

  test('requests were spread over every instance (no affinity)', async () => {
    const stats = (await (await fetch(`${proxyUrl}${STATS_PATH}`)).json()) as { forwarded: number[]; badGateway: number };
    expect(stats.forwarded).toHaveLength(3);
    for (const count of stats.forwarded) expect(count).toBeGreaterThanOrEqual(2);
    expect(stats.badGateway).toBe(0);
    expect(new Set(await Promise.all(posts.map((post) => post.instance)))).toEqual(new Set(['1', '2', '3']));
  });

  test('SIGTERM: every instance drains and exits, then the cluster exits with 0', async () => {
    await client?.close();
    client = undefined;
    cluster!.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/\[cluster\] every instance exited/);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }, 30_000);
}));
