import { z } from 'zod';
import type { McpServer } from 'mcp-express';
import { PIXEL_PNG_BASE64, SILENT_WAV_BASE64 } from './media';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Pause between the notifications of the logging and progress fixtures, so they arrive as separate events. */
const STEP_DELAY_MS = 50;

/** `retry:` sent when `test_reconnection` drops its connection; the result follows a little later. */
const RECONNECT_RETRY_MS = 100;

/**
 * Tools that return content, log, report progress or fail: everything that needs nothing from the client.
 * `test_simple_text` comes first: the header-validation scenario calls the first listed tool with no arguments.
 */
export function registerTools(server: McpServer): void {
  server.tool('test_simple_text', { description: 'Returns one text block' }, () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));

  server.tool(
    'slow_count',
    {
      description: 'Sends n progress notifications intervalMs apart, then answers "counted n" (for resumes, failover and drain trials)',
      inputSchema: { n: z.number().int().min(0).max(100_000), intervalMs: z.number().int().min(0).max(60_000) },
    },
    async ({ n, intervalMs }, ctx) => {
      for (let i = 1; i <= n; i++) {
        await sleep(intervalMs);
        ctx.signal.throwIfAborted();
        await ctx.progress(i, n, `counted ${i}`);
      }
      return { content: [{ type: 'text', text: `counted ${n}` }] };
    },
  );

  server.tool('sum', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));

  server.tool('test_image_content', { description: 'Returns one image block (a 1x1 PNG)' }, () => ({
    content: [{ type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' }],
  }));

  server.tool('test_audio_content', { description: 'Returns one audio block (a short silent WAV)' }, () => ({
    content: [{ type: 'audio', data: SILENT_WAV_BASE64, mimeType: 'audio/wav' }],
  }));

  server.tool('test_embedded_resource', { description: 'Returns an embedded text resource' }, () => ({
    content: [
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ],
  }));

  server.tool('test_multiple_content_types', { description: 'Returns text, an image and an embedded resource in one result' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      },
    ],
  }));

  server.tool('test_tool_with_logging', { description: 'Sends three info log messages while it runs' }, async (_args, ctx) => {
    ctx.log('info', 'Tool execution started');
    await sleep(STEP_DELAY_MS);
    ctx.log('info', 'Tool processing data');
    await sleep(STEP_DELAY_MS);
    ctx.log('info', 'Tool execution completed');
    return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
  });

  server.tool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100 while it runs' }, async (_args, ctx) => {
    for (const done of [0, 50, 100]) {
      if (done > 0) await sleep(STEP_DELAY_MS);
      ctx.progress(done, 100, `Completed step ${done} of 100`);
    }
    return { content: [{ type: 'text', text: `Progress reported for token ${String(ctx.meta?.progressToken ?? '(none)')}` }] };
  });

  // A handler that throws becomes a tool result with `isError: true`, which the model can read.
  server.tool('test_error_handling', { description: 'Always fails, to test error results' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  // SEP-1699 polling: the server ends the connection mid-call; the client reconnects with Last-Event-ID and
  // gets the result from the resumed stream.
  server.tool(
    'test_reconnection',
    { description: 'Closes its SSE stream mid-call, then answers once the client has reconnected (SEP-1699)' },
    async (_args, ctx) => {
      ctx.closeSSEStream(RECONNECT_RETRY_MS);
      await sleep(RECONNECT_RETRY_MS * 3);
      return {
        content: [{ type: 'text', text: 'Reconnection test completed: the result arrived on the resumed stream.' }],
      };
    },
  );
}
