import { z } from 'zod';
import type { McpServer } from 'mcp-express';
import { PIXEL_PNG_BASE64 } from './media';

/** Values offered for `arg1` of `test_prompt_with_arguments` by `completion/complete`. */
const ARG1_SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing'];

export function registerPrompts(server: McpServer): void {
  server.prompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));

  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments; arg1 has completions',
      argsSchema: { arg1: z.string().describe('First test argument'), arg2: z.string().describe('Second test argument') },
      complete: { arg1: (value) => ARG1_SUGGESTIONS.filter((word) => word.startsWith(value)) },
    },
    ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );

  server.prompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt that embeds the resource it is given', argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') } },
    ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  server.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PIXEL_PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}
