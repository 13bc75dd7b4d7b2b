import type { McpServer } from 'mcp-express';
import { textOf } from './text-of';

const confirmRequest = {
  message: 'Please confirm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};

/**
 * Multi-round-trip fixtures (2026-07-28 `input_required`). Each is ordinary tool code: `ctx.elicit`, `ctx.sample`
 * and `ctx.listRoots` with a key. On 2026-07-28 a missing answer ends the call with `input_required` and the retry
 * resumes it; in a 2025 session the same calls go to the client on the request's stream.
 */
export function registerInputRequiredFixtures(server: McpServer): void {
  server.tool('test_input_required_result_elicitation', { description: 'Asks for the user name, then greets them' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'user_name' },
    );
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name ?? 'stranger')}!` }] };
  });

  server.tool('test_input_required_result_sampling', { description: "Asks the client's model for the capital of France" }, async (_args, ctx) => {
    const answer = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    );
    return { content: [{ type: 'text', text: `The model says: ${textOf(answer.content)}` }] };
  });

  server.tool('test_input_required_result_list_roots', { description: "Lists the client's roots" }, async (_args, ctx) => {
    const answer = await ctx.listRoots({ key: 'client_roots' });
    return { content: [{ type: 'text', text: `Roots: ${answer.roots.map((root) => root.uri).join(', ')}` }] };
  });

  server.tool('test_input_required_result_request_state', { description: 'Keeps its own state between rounds in requestState' }, async (_args, ctx) => {
    if (ctx.requestState === undefined) ctx.inputRequired({ confirm: { method: 'elicitation/create', params: confirmRequest } }, { asked: 'confirm' });
    const answer = await ctx.elicit(confirmRequest, { key: 'confirm' });
    const state = ctx.requestState as { asked?: string };
    return { content: [{ type: 'text', text: `state-ok: requestState validated (${state.asked}, ${answer.action})` }] };
  });

  server.tool('test_input_required_result_multiple_inputs', { description: 'Asks for a name, a greeting and the roots in one round' }, async (_args, ctx) => {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return {
      content: [{ type: 'text', text: `${textOf(greeting.content)} ${String(name.content?.name)} (${roots.roots.length} roots)` }],
    };
  });

  server.tool('test_input_required_result_multi_round', { description: 'Asks two questions, one round each' }, async (_args, ctx) => {
    const step1 = await ctx.elicit(
      { message: 'Step 1: What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'step1' },
    );
    const step2 = await ctx.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      { key: 'step2' },
    );
    return { content: [{ type: 'text', text: `${String(step1.content?.name)} likes ${String(step2.content?.color)}` }] };
  });

  server.tool('test_input_required_result_tampered_state', { description: 'Relies on an integrity-protected requestState' }, async (_args, ctx) => {
    const answer = await ctx.elicit(confirmRequest, { key: 'confirm' });
    return { content: [{ type: 'text', text: `Confirmed: ${answer.action}` }] };
  });

  server.tool('test_input_required_result_capabilities', { description: 'Asks only for what the client declared it can do' }, async (_args, ctx) => {
    if (ctx.clientCapabilities.elicitation) {
      const answer = await ctx.elicit(confirmRequest, { key: 'confirm' });
      return { content: [{ type: 'text', text: `Elicited: ${answer.action}` }] };
    }
    if (ctx.clientCapabilities.sampling) {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Confirm?' } }], maxTokens: 20 }, { key: 'confirm_by_model' });
      return { content: [{ type: 'text', text: `Sampled: ${textOf(answer.content)}` }] };
    }
    return { content: [{ type: 'text', text: 'The client can answer nothing; carrying on without input' }] };
  });

  server.prompt('test_input_required_result_prompt', { description: 'A prompt that asks the user for context first' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { key: 'user_context' },
    );
    return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${String(answer.content?.context)}` } }] };
  });
}
