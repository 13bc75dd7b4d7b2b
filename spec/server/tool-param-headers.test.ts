/**
 * The `x-mcp-header` names of a tool's arguments (SEP-2243 `Mcp-Param-*`) are worked out once, when the tool is
 * registered, and served only while the tool is enabled: the 2026-07-28 header check of every tools/call reads
 * them without walking the tool's JSON Schema again.
 */
import { z } from 'zod';
import { McpServer, type RegisteredTool } from '../../lib/index.js';

function serverWithTools(): { server: McpServer; region: RegisteredTool } {
  const server = new McpServer({ name: 'param-headers', version: '1.0.0' });
  const region = server.tool(
    'region_tool',
    {
      inputSchema: { region: z.string(), zone: z.number().int(), note: z.string().optional() },
      propertyAnnotations: { region: { 'x-mcp-header': 'Region' }, zone: { 'x-mcp-header': 'Zone', description: 'the zone' } },
    },
    async () => ({ content: [] }),
  );
  server.tool('plain_tool', { inputSchema: { a: z.number() } }, async () => ({ content: [] }));
  return { server, region };
}

test('a tool with x-mcp-header arguments: argument name to header name, those arguments only', () => {
  const { server } = serverWithTools();
  expect([...(server.toolParamHeaders('region_tool') ?? [])]).toEqual([
    ['region', 'Region'],
    ['zone', 'Zone'],
  ]);
});

test('a tool without any, an unknown tool, and a disabled or removed one: none', () => {
  const { server, region } = serverWithTools();
  expect(server.toolParamHeaders('plain_tool')).toBeUndefined();
  expect(server.toolParamHeaders('no_such_tool')).toBeUndefined();
  region.disable();
  expect(server.toolParamHeaders('region_tool')).toBeUndefined();
  region.enable();
  expect(server.toolParamHeaders('region_tool')?.get('region')).toBe('Region');
  region.remove();
  expect(server.toolParamHeaders('region_tool')).toBeUndefined();
});
