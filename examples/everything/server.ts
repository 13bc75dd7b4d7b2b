import { McpServer, type TaskStore } from 'mcp-express';
import { registerClientRequestTools } from './client-requests';
import { registerDiagnostics } from './diagnostics';
import { registerInputRequiredFixtures } from './input-required';
import { registerJsonSchemaTool } from './json-schema-tool';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { registerSkills } from './skills';
import { registerTaskFixtures } from './tasks';
import { registerTools } from './tools';

/**
 * The example server: `sum`, plus every fixture the official conformance suite
 * (`@modelcontextprotocol/conformance`) asks of a server for the 2025-11-25 and 2026-07-28 requirements.
 */
export function createEverythingServer(options: { taskStore?: TaskStore } = {}): McpServer {
  const server = new McpServer({ name: 'mcp-express-everything', version: '0.1.0' }, options.taskStore ? { tasks: { store: options.taskStore } } : {});
  registerTools(server);
  registerClientRequestTools(server);
  registerJsonSchemaTool(server);
  registerDiagnostics(server);
  registerInputRequiredFixtures(server);
  registerResources(server);
  registerPrompts(server);
  registerSkills(server);
  registerTaskFixtures(server);
  return server;
}
