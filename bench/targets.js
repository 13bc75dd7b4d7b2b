'use strict';
// What is benchmarked, shared by the parent (bench/run.js, bench/smoke.js) and the servers (bench/server.js).

/** The result of tools/call "sum" with { a: 2, b: 3 }: what every target must answer. */
const SUM_RESULT = { content: [{ type: 'text', text: '5' }] };

/** The default point of comparison (Express targets and the official SDK). Each target names its own `baseline`. */
const BASELINE = 'express-bare';
/** The raw node:http floor: the point of comparison of the middleware mounted on plain node:http. */
const NODE_FLOOR = 'node-floor';

/**
 * Throughput targets. `baseline`: the target whose req/s (same round) and CPU per request each ratio is taken
 * against; `mount`: 'express' or 'node' (plain node:http); `modern`: a 2026-07-28 client (no session);
 * `stores`: 'memory' or 'redis' (LocalSessionManager stores, and with 'redis' the bus and stream leases);
 * `progress`: the tool sends one notifications/progress before its result; `redis`: needs the Redis server.
 */
const TARGETS = [
  {
    name: 'express-bare',
    mcp: false,
    mount: 'express',
    description: 'express() + express.json() + res.json(<the tools/call result>): no MCP at all, the Express ceiling',
  },
  {
    name: 'mcp-express',
    mcp: true,
    mount: 'express',
    description: 'this package: app.use(mcpMiddleware({ server })), one session, answers as SSE (the default)',
  },
  {
    name: 'mcp-express-json',
    mcp: true,
    mount: 'express',
    description: 'this package with enableJsonResponse: true (one application/json body per call)',
  },
  {
    name: 'mcp-express-2026',
    mcp: true,
    modern: true,
    mount: 'express',
    description: 'this package serving 2026-07-28 requests: stateless, _meta envelope and standard headers checked, JSON answer (responseMode auto)',
  },
  {
    name: 'sdk-v1-stateful',
    mcp: true,
    mount: 'express',
    description: '@modelcontextprotocol/sdk 1.x McpServer + StreamableHTTPServerTransport, transports by session id (documented stateful pattern), SSE',
  },
  {
    name: 'sdk-v1-stateless',
    mcp: true,
    mount: 'express',
    description: '@modelcontextprotocol/sdk 1.x documented stateless pattern: new McpServer + transport per request, SSE',
  },
  {
    name: NODE_FLOOR,
    mcp: false,
    mount: 'node',
    baseline: NODE_FLOOR,
    description: 'plain node:http: reads the body, JSON.parse, answers the same JSON-RPC result with writeHead/end: the Node floor',
  },
  {
    name: 'node-floor-sse',
    mcp: false,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the floor answering the same result as the SSE stream the middleware writes (SSE headers, a priming event, the response event, chunked): no MCP, what the SSE shape alone costs',
  },
  {
    name: 'node-floor-2026',
    mcp: false,
    modern: true,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the floor fed the request node-mcp-2026 gets (its _meta envelope, about 200 bytes more, and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers): no MCP, what the larger 2026-07-28 request alone costs',
  },
  {
    name: 'node-floor-plus-4us',
    mcp: false,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the floor plus 4 µs of busy JavaScript per request: what a handler\'s own work costs in the ratio on this machine',
  },
  {
    name: 'node-least-mcp-2026',
    mcp: true,
    modern: true,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the least a 2026-07-28 tools/call takes, written by hand for this request: the checks the spec asks of it, the same zod schema and handler, the JSON answer; no limits, cancellation, streaming or anything else: a lower bound for node-mcp-2026',
  },
  {
    name: 'node-least-mcp-session',
    mcp: true,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the least a 2025-11-25 session tools/call answered as SSE takes, by hand: session lookup and version check, the same checks, zod schema and handler, one SSE event with a Content-Length; no resumability or anything else: a lower bound for node-mcp-session',
  },
  {
    name: 'node-least-standard-2026',
    mcp: true,
    modern: true,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'node-least-mcp-2026 plus the least of what this project\'s standards ask of every call: the Host/Origin guard, the body limit in bytes, the call cancelled when its client goes away (a record per running call): what a call that is secure by default takes at the least, by hand',
  },
  {
    name: 'node-least-standard-session',
    mcp: true,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'node-least-mcp-session plus the guard, the body limit and cancellation (by notifications/cancelled or the client going away), answered resumably: a priming event, event ids, the stream\'s events kept in memory within bounds (64 streams and 4 MiB per session, 32 MiB in all): what a resumable session call takes at the least, by hand',
  },
  {
    name: 'node-floor-plus-8us',
    mcp: false,
    mount: 'node',
    reference: true,
    baseline: NODE_FLOOR,
    description: 'the floor plus 8 µs of busy JavaScript per request',
  },
  {
    name: 'node-mcp-2026',
    mcp: true,
    modern: true,
    mount: 'node',
    baseline: NODE_FLOOR,
    description: 'mcpMiddleware on plain node:http (the Connect use), 2026-07-28 stateless tools/call, JSON answer',
  },
  {
    name: 'node-mcp-session',
    mcp: true,
    mount: 'node',
    baseline: NODE_FLOOR,
    description: 'mcpMiddleware on plain node:http, 2025-11-25 session tools/call answered as SSE, no stores',
  },
  {
    name: 'node-mcp-session-memory',
    mcp: true,
    mount: 'node',
    stores: 'memory',
    baseline: 'node-mcp-session',
    description: 'node-mcp-session with LocalSessionManager({ eventStore: InMemoryEventStore, sessionStore: InMemorySessionStore })',
  },
  {
    name: 'node-mcp-session-redis',
    mcp: true,
    mount: 'node',
    stores: 'redis',
    redis: true,
    baseline: 'node-mcp-session',
    description: 'node-mcp-session with RedisEventStore, RedisSessionStore, RedisStreamLeases and the RedisMessageBus (Redis on this machine)',
  },
  {
    name: 'node-least-mcp-session-redis',
    mcp: true,
    mount: 'node',
    reference: true,
    redis: true,
    baseline: 'node-least-mcp-session',
    description: 'node-least-mcp-session storing each response in Redis before sending it (one script per call: a store-wide seq, the session\'s list and its TTL; node-redis\'s per-command timer off, no deadline): a lower bound for what node-mcp-session-redis adds to its call',
  },
  {
    name: 'node-mcp-session-progress',
    mcp: true,
    mount: 'node',
    progress: true,
    baseline: NODE_FLOOR,
    description: 'node-mcp-session calling a tool that sends one notifications/progress before its result, no stores',
  },
  {
    name: 'node-mcp-session-redis-progress',
    mcp: true,
    mount: 'node',
    stores: 'redis',
    redis: true,
    progress: true,
    baseline: 'node-mcp-session-progress',
    description: 'node-mcp-session-progress with the Redis stores, leases and bus',
  },
  {
    name: 'mcp-express-alt',
    mcp: true,
    mount: 'express',
    alt: true,
    description: 'this package from the build given with --alt-dist (SSE): a patch measured beside the current build',
  },
  {
    name: 'mcp-express-json-alt',
    mcp: true,
    mount: 'express',
    alt: true,
    description: 'this package from the build given with --alt-dist, enableJsonResponse: true',
  },
];
for (const target of TARGETS) target.baseline ??= BASELINE;

/** A target and the baselines its ratios need (transitively), in TARGETS order. */
function withBaselines(names) {
  const wanted = new Set();
  const add = (name) => {
    if (wanted.has(name)) return;
    wanted.add(name);
    const target = TARGETS.find((t) => t.name === name);
    if (target) add(target.baseline);
  };
  names.forEach(add);
  return TARGETS.filter((t) => wanted.has(t.name));
}

const PROTOCOL_VERSION = '2025-11-25';
const MODERN_PROTOCOL_VERSION = '2026-07-28';

module.exports = { SUM_RESULT, BASELINE, NODE_FLOOR, TARGETS, withBaselines, PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION };
