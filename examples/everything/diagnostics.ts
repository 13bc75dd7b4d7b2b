import { z } from 'zod';
import type { McpServer } from 'mcp-express';
import { textOf } from './text-of';

/**
 * Fixtures the 2026-07-28 conformance scenarios use to probe stateless behaviour: capability checks, no
 * server→client requests on a response stream, no logs without a requested level, list_changed delivery to
 * `subscriptions/listen` streams, and an argument mirrored in an `Mcp-Param-*` header.
 */
export function registerDiagnostics(server: McpServer): void {
  server.tool('test_missing_capability', { description: 'Needs the client sampling capability; without it the call fails with -32021' }, async (_args, ctx) => {
    const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { key: 'hello' });
    return { content: [{ type: 'text', text: `Success: ${textOf(result.content)}` }] };
  });

  server.tool('test_streaming_elicitation', { description: 'Asks the user to confirm; on 2026-07-28 this is an input_required result, never a request on the stream' }, async (_args, ctx) => {
    ctx.progress(0, 1, 'asking the user');
    const answer = await ctx.elicit(
      { message: 'Continue?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    return { content: [{ type: 'text', text: `Confirmed: ${answer.action}` }] };
  });

  server.tool('test_logging_tool', { description: 'Logs three messages; they are sent only if the request asked for a log level' }, (_args, ctx) => {
    ctx.log('info', 'Logging tool started');
    ctx.log('warning', 'Logging tool is halfway');
    ctx.log('info', 'Logging tool finished');
    return { content: [{ type: 'text', text: 'Logged three messages' }] };
  });

  server.tool('test_trigger_tool_change', { description: 'Announces a tool list change to listening clients' }, () => {
    server.notifyToolsListChanged();
    return { content: [{ type: 'text', text: 'Mutation triggered' }] };
  });

  server.tool('test_trigger_prompt_change', { description: 'Announces a prompt list change to listening clients' }, () => {
    server.notifyPromptsListChanged();
    return { content: [{ type: 'text', text: 'Mutation triggered' }] };
  });

  server.tool(
    'test_custom_header',
    {
      description: 'Echoes an argument that clients also send in the Mcp-Param-Region header (SEP-2243)',
      inputSchema: { region: z.string().describe('A region name, mirrored in the Mcp-Param-Region header') },
      propertyAnnotations: { region: { 'x-mcp-header': 'Region' } },
    },
    ({ region }) => ({ content: [{ type: 'text', text: `region=${region}` }] }),
  );
}
