import { z } from 'zod';
import { ErrorCode, McpError, type McpServer } from 'mcp-express';

/** Waits `ms`, or rejects with the signal's reason as soon as it fires (the timer is cleared: nothing lingers). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const nameQuestion = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};

/**
 * The tasks extension fixtures of the conformance suite (SEP-2663). Ordinary tool code: a tool declares its
 * `taskSupport` and the server decides whether a call runs synchronously or as a task; `ctx.elicit` inside a
 * task becomes the task's `input_required`, `tasks/cancel` fires `ctx.signal`.
 */
export function registerTaskFixtures(server: McpServer): void {
  server.tool('greet', { description: 'Greets someone (never a task)', inputSchema: { name: z.string() } }, ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}!` }],
  }));

  server.tool(
    'slow_compute',
    {
      description: 'Works for `seconds` seconds, then answers; a task when the client allows it and it is slow',
      inputSchema: { seconds: z.number().min(0).max(600), label: z.string().optional() },
      taskSupport: 'optional',
    },
    async ({ seconds, label }, ctx) => {
      await ctx.progress(0, seconds, `Computing ${label ?? 'something'} for ${seconds} s`);
      await sleep(seconds * 1000, ctx.signal);
      return { content: [{ type: 'text', text: `Computed ${label ?? 'something'} in ${seconds} s` }] };
    },
  );

  server.tool('failing_job', { description: 'Always fails as a tool (isError) after about a second; only as a task', taskSupport: 'required' }, async (_args, ctx) => {
    await sleep(1000, ctx.signal);
    throw new Error('The job failed: this fixture always does');
  });

  server.tool('protocol_error_job', { description: 'Fails with a JSON-RPC error (the task ends failed); only as a task', taskSupport: 'required' }, async (_args, ctx) => {
    await sleep(200, ctx.signal);
    throw new McpError(ErrorCode.InternalError, 'The job crashed: this fixture always does');
  });

  server.tool(
    'confirm_delete',
    { description: 'Asks the user to confirm before "deleting" a file', inputSchema: { filename: z.string() }, taskSupport: 'optional' },
    async ({ filename }, ctx) => {
      const answer = await ctx.elicit(
        {
          message: `Delete ${filename}?`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
        },
        { key: 'confirm' },
      );
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return { content: [{ type: 'text', text: confirmed ? `Deleted ${filename}` : `Kept ${filename}` }] };
    },
  );

  server.tool('multi_input', { description: 'Asks two questions at once', taskSupport: 'optional' }, async (_args, ctx) => {
    const [first, second] = await Promise.all([ctx.elicit(nameQuestion, { key: 'first' }), ctx.elicit(nameQuestion, { key: 'second' })]);
    return { content: [{ type: 'text', text: `Got ${String(first.content?.name)} and ${String(second.content?.name)}` }] };
  });

  server.tool(
    'test_tool_with_task',
    { description: 'Asks for the user name in an input round first, then works as a task', taskSupport: 'required' },
    async (_args, ctx) => {
      // Round 1 (synchronous input_required); the retry carries the answer and the task starts.
      if (ctx.requestState === undefined) ctx.inputRequired({ user_name: { method: 'elicitation/create', params: nameQuestion } }, { asked: 'user_name' });
      const answer = await ctx.elicit(nameQuestion, { key: 'user_name' });
      await sleep(200, ctx.signal);
      return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name ?? 'stranger')}! (from a task)` }] };
    },
  );
}
