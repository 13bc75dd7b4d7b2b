'use strict';
// What is benchmarked, shared by the parent (bench/run.js) and the servers (bench/server.js).

/** The result of tools/call "sum" with { a: 2, b: 3 }: what every target must answer. */
const SUM_RESULT = { content: [{ type: 'text', text: '5' }] };

/** The fixed point of comparison: every ratio is a target's req/s over this one's. */
const BASELINE = 'express-bare';

const TARGETS = [
  {
    name: 'express-bare',
    mcp: false,
    description: 'express() + express.json() + res.json(<the tools/call result>): no MCP at all, the ceiling',
  },
  {
    name: 'mcp-express',
    mcp: true,
    description: 'this package: app.use(mcpMiddleware({ server })), one session, answers as SSE (the default)',
  },
  {
    name: 'mcp-express-json',
    mcp: true,
    description: 'this package with enableJsonResponse: true (one application/json body per call)',
  },
  {
    name: 'mcp-express-2026',
    mcp: true,
    modern: true,
    description: 'this package serving 2026-07-28 requests: stateless, _meta envelope and standard headers checked, JSON answer (responseMode auto)',
  },
  {
    name: 'sdk-v1-stateful',
    mcp: true,
    description: '@modelcontextprotocol/sdk 1.x McpServer + StreamableHTTPServerTransport, transports by session id (documented stateful pattern), SSE',
  },
  {
    name: 'sdk-v1-stateless',
    mcp: true,
    description: '@modelcontextprotocol/sdk 1.x documented stateless pattern: new McpServer + transport per request, SSE',
  },
  {
    name: 'mcp-express-alt',
    mcp: true,
    alt: true,
    description: 'this package from the build given with --alt-dist (SSE): a patch measured beside the current build',
  },
  {
    name: 'mcp-express-json-alt',
    mcp: true,
    alt: true,
    description: 'this package from the build given with --alt-dist, enableJsonResponse: true',
  },
];

const PROTOCOL_VERSION = '2025-11-25';
const MODERN_PROTOCOL_VERSION = '2026-07-28';

module.exports = { SUM_RESULT, BASELINE, TARGETS, PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION };
