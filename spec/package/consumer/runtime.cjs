const { LOOPBACK_HOSTS, McpServer, mcpMiddleware } = require('mcp-express');
const { RedisEventStore } = require('mcp-express/redis');
const { describeEventStoreContract } = require('mcp-express/testing');
const mcp = mcpMiddleware({ server: new McpServer({ name: 'cjs', version: '1' }) });
console.log(JSON.stringify({ kind: 'cjs', loopback: LOOPBACK_HOSTS, handler: typeof mcp, errorHandlerArity: mcp.errorHandler.length, cors: typeof mcp.cors, redis: typeof RedisEventStore, testing: typeof describeEventStoreContract }));
mcp.close();
