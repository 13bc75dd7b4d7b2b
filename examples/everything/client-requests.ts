import { z } from 'zod';
import type { ElicitResult, McpServer } from 'mcp-express';
import { textOf } from './text-of';

/**
 * Tools that ask the client for something mid-call: a model completion (sampling) or user input (elicitation).
 * Each request goes out on the tool call's own SSE stream. A client without the capability gets a JSON-RPC error.
 */
export function registerClientRequestTools(server: McpServer): void {
  server.tool(
    'test_sampling',
    { description: "Asks the client's model to answer a prompt (sampling/createMessage)", inputSchema: { prompt: z.string().describe('The prompt to send to the model') } },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      return { content: [{ type: 'text', text: `LLM response: ${textOf(result.content)}` }] };
    },
  );

  server.tool(
    'test_elicitation',
    { description: 'Asks the user for a username and an email (elicitation/create)', inputSchema: { message: z.string().describe('The message to show the user') } },
    async ({ message }, ctx) => {
      const result = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return { content: [{ type: 'text', text: `User response: ${describe(result)}` }] };
    },
  );

  // SEP-1034: every primitive type of a form can carry a default.
  server.tool('test_elicitation_sep1034_defaults', { description: 'Elicits a form whose fields all have default values (SEP-1034)' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please check these details; the defaults are filled in',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Full name', default: 'John Doe' },
          age: { type: 'integer', description: 'Age in years', default: 30 },
          score: { type: 'number', description: 'Score', default: 95.5 },
          status: { type: 'string', description: 'Account status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Whether the account is verified', default: true },
        },
      },
    });
    return { content: [{ type: 'text', text: `Elicitation completed: ${describe(result)}` }] };
  });

  // SEP-1330: the five ways a form can offer a choice.
  server.tool('test_elicitation_sep1330_enums', { description: 'Elicits a form with every enum variant (SEP-1330)' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please pick from each list',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', title: 'Untitled single choice', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            title: 'Titled single choice',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            title: 'Legacy titled choice',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            title: 'Untitled multiple choice',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            title: 'Titled multiple choice',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    });
    return { content: [{ type: 'text', text: `Elicitation completed: ${describe(result)}` }] };
  });
}

/** The text of a sampling answer, which may be one block or (with tool use) several. */

function describe(result: ElicitResult): string {
  return `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}
