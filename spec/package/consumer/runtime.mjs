import { LOOPBACK_HOSTS, McpServer, mcpMiddleware } from 'mcp-express';
import { RedisEventStore } from 'mcp-express/redis';
import { describeEventStoreContract } from 'mcp-express/testing';
const mcp = mcpMiddleware({ server: new McpServer({ name: 'esm', version: '1' }) });
console.log(JSON.stringify({ kind: 'esm', loopback: LOOPBACK_HOSTS, handler: typeof mcp, errorHandlerArity: mcp.errorHandler.length, cors: typeof mcp.cors, redis: typeof RedisEventStore, testing: typeof describeEventStoreContract }));
await mcp.close();
