import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One instance behind the proxy. */
export interface Upstream {
  /** Where it listens (the proxy connects here and names this host in `Host`). */
  host: string;
  port: number;
  /** False once the instance is known to be gone: the proxy skips it. Defaults to `true`. */
  up?: boolean;
}

export interface RoundRobinProxyOptions {
  /** The instances, in the order requests go round. */
  upstreams: Upstream[];
  /** Where the proxy listens. Defaults to port `3000` on `127.0.0.1`. */
  port?: number;
  host?: string;
  /** Largest request body the proxy holds while it picks an instance; larger gets 413. Defaults to 8 MiB. */
  maxBodyBytes?: number;
}

/** What the proxy has done, per instance: `GET /__cluster/stats` answers this as JSON. */
export interface ProxyStats {
  /** Requests forwarded to each instance (by index in `upstreams`), answered or not. */
  forwarded: number[];
  /** Requests answered 502 because no instance could be reached. */
  badGateway: number;
}

export interface RoundRobinProxy {
  /** `http://host:port`, the port the proxy really got (with port 0). */
  url: string;
  stats(): ProxyStats;
  /** Stops listening and ends every connection still open. */
  close(): Promise<void>;
}

/** The path of the proxy's own statistics; every other path is forwarded. */
export const STATS_PATH = '/__cluster/stats';

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/**
 * A round-robin HTTP proxy for local trials of a cluster, on `node:http` only: each request goes to the next
 * instance, with no affinity of any kind (no cookie, no session id hashing), so every MCP request of one client
 * may land on a different instance. Bodies stream both ways: an SSE response is written to the client chunk by
 * chunk as the instance sends it, never buffered.
 *
 * The request body is read first (it is small: a JSON-RPC message), so that a request whose instance refuses the
 * connection (stopped, or killed) can be sent to the next one: nothing reached the refusing instance, so the retry is
 * safe for every method. Any other failure (an instance that dies while answering) is a 502 or, once the response
 * has started, a dropped connection, which MCP clients resume with `Last-Event-ID` on whichever instance comes next.
 * Not for production: use nginx or HAProxy (docs/deployment.md).
 */
export function startRoundRobinProxy(options: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  const upstreams = options.upstreams;
  if (upstreams.length === 0) throw new TypeError('startRoundRobinProxy needs at least one upstream.');
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const agent = new http.Agent({ keepAlive: true });
  const stats: ProxyStats = { forwarded: upstreams.map(() => 0), badGateway: 0 };
  let next = 0;

  /** The next instance not known to be down, after `tried` attempts for this request; undefined when none is left. */
  const pick = (tried: Set<number>): number | undefined => {
    for (let i = 0; i < upstreams.length; i++) {
      const index = next;
      next = (next + 1) % upstreams.length;
      if (upstreams[index].up !== false && !tried.has(index)) return index;
    }
    return undefined;
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<number>): void => {
    const index = pick(tried);
    if (index === undefined) {
      stats.badGateway++;
      return sendPlain(res, 502, 'Bad Gateway: no instance of the cluster accepted the connection.');
    }
    tried.add(index);
    const upstream = upstreams[index];
    stats.forwarded[index]++;
    const upstreamReq = http.request({
      agent,
      host: upstream.host,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: forwardedHeaders(req, upstream, body.length),
    });
    upstreamReq.setNoDelay(true);
    upstreamReq.on('response', (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, responseHeaders(upstreamRes.headers, index));
      // Headers go out at once (an SSE response may wait long for its first event), then each chunk as it comes.
      res.flushHeaders();
      upstreamRes.pipe(res);
      // The instance died mid-response: the client sees the connection drop (and resumes), not a clean end.
      upstreamRes.on('close', () => {
        if (!upstreamRes.complete) res.destroy();
      });
    });
    upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      // Refused: nothing reached that instance, so another one may take the request, whatever its method.
      if (error.code === 'ECONNREFUSED') return forward(req, res, body, tried);
      stats.badGateway++;
      sendPlain(res, 502, `Bad Gateway: the instance on port ${upstream.port} failed (${error.code ?? error.message}).`);
    });
    // The client went away (closed its SSE stream, or a timeout): the instance sees it go away too.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    upstreamReq.end(body);
  };

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === STATS_PATH) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ ...stats, upstreams: upstreams.map(({ host, port, up }) => ({ host, port, up: up !== false })) }));
    }
    readBody(req, maxBodyBytes).then(
      (body) => (body === undefined ? sendPlain(res, 413, `Payload Too Large: the proxy forwards bodies of at most ${maxBodyBytes} bytes.`) : forward(req, res, body, new Set())),
      () => res.destroy(),
    );
  });
  // SSE responses stay open for as long as the client listens: no request or idle timeout of the proxy's own.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${host}:${address.port}`,
        stats: () => ({ forwarded: [...stats.forwarded], badGateway: stats.badGateway }),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
            agent.destroy();
          }),
      });
    });
  });
}

/**
 * The client's headers for the instance: hop-by-hop ones dropped, `Host` naming the instance (whose DNS-rebinding
 * check allows loopback names only by default), the original host and client in `X-Forwarded-*`.
 */
function forwardedHeaders(req: IncomingMessage, upstream: Upstream, bodyLength: number): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'host' || name === 'content-length') continue;
    headers[name] = value;
  }
  headers.host = `${upstream.host}:${upstream.port}`;
  if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
  headers['x-forwarded-proto'] = 'http';
  const client = req.socket.remoteAddress;
  if (client) headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${String(req.headers['x-forwarded-for'])}, ${client}` : client;
  if (bodyLength > 0 || (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE')) headers['content-length'] = String(bodyLength);
  return headers;
}

/** The instance's response headers without hop-by-hop ones, plus which instance answered (`X-Cluster-Instance`). */
function responseHeaders(headers: IncomingHttpHeaders, index: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  out['x-cluster-instance'] = String(index + 1);
  return out;
}

/** The whole body, or undefined when it is larger than `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendPlain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
