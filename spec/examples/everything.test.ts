/**
 * The "everything" example (the conformance fixtures) mounted with mcpMiddleware on 127.0.0.1 and driven by the
 * official SDK v1 client, so a broken fixture shows up in `npm test` and not only in `npm run conformance`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { createEverythingServer } from '../../examples/everything/server';
import type { NextFunction, Request, Response } from 'express';
import { serve, type Served } from '../helpers/serve.js';

let served: Served;
let client: Client;
let transport: StreamableHTTPClientTransport;

/** GET requests that carried `Last-Event-ID` (resumes), with what the server wrote on each (written or ended with). */
const resumes: Array<{ lastEventId: string; body: string }> = [];
function recordResumes(req: Request, res: Response, next: NextFunction): void {
  const lastEventId = req.headers['last-event-id'];
  if (req.method === 'GET' && typeof lastEventId === 'string') {
    const resume = { lastEventId, body: '' };
    resumes.push(resume);
    // What the server writes, by write() or with the response's end() (the stream's last frames go out with it).
    const record = (chunk: unknown) => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) resume.body += chunk.toString();
    };
    const write = res.write;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      record(chunk);
      return (write as (...args: unknown[]) => boolean).call(res, chunk, ...rest);
    }) as typeof res.write;
    const end = res.end;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      record(chunk);
      return (end as (...args: unknown[]) => Response).call(res, chunk, ...rest);
    }) as typeof res.end;
  }
  next();
}

beforeAll(async () => {
  // A short retry so that the client of test_reconnection comes back quickly.
  served = await serve({ server: createEverythingServer(), sseRetry: 100, sseKeepAlive: 0 }, (app) => app.use(recordResumes));
  client = new Client({ name: 'everything-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `echo of "${(request.params.messages[0].content as { text: string }).text}"` },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
  transport = new StreamableHTTPClientTransport(new URL(served.url));
  await client.connect(transport);
});

afterAll(async () => {
  await transport.terminateSession();
  await client.close();
  await served.close();
});

test('lists every conformance tool with a description and an object input schema', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(
    expect.arrayContaining([
      'sum',
      'test_simple_text',
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
      'test_tool_with_logging',
      'test_error_handling',
      'test_tool_with_progress',
      'test_reconnection',
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'json_schema_2020_12_tool',
    ]),
  );
  for (const tool of tools) {
    expect(tool.description).toEqual(expect.any(String));
    expect(tool.inputSchema.type).toBe('object');
  }
  const jsonSchemaTool = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')!;
  expect(jsonSchemaTool.inputSchema).toMatchObject({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $defs: { address: { $anchor: 'addressDef' } },
    additionalProperties: false,
  });
});

test('sum adds its arguments', async () => {
  const result = await client.callTool({ name: 'sum', arguments: { a: 2, b: 40 } });
  expect(result.content).toEqual([{ type: 'text', text: '42' }]);
});

test('test_simple_text returns the expected text', async () => {
  const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
  expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
});

test('test_error_handling fails as a tool result, not as a JSON-RPC error', async () => {
  const result = await client.callTool({ name: 'test_error_handling', arguments: {} });
  expect(result.isError).toBe(true);
  expect(result.content).toEqual([{ type: 'text', text: 'This tool intentionally returns an error for testing' }]);
});

test('test_tool_with_progress reports 0, 50 and 100 of 100', async () => {
  const updates: Progress[] = [];
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (update) => updates.push(update) });
  expect(updates.map((update) => [update.progress, update.total])).toEqual([
    [0, 100],
    [50, 100],
    [100, 100],
  ]);
});

test('test_sampling and test_elicitation ask the client and report its answer', async () => {
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi' } });
  expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo of "Say hi"' }]);
  const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
  expect(elicited.content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }]);
});

test('test_reconnection delivers its result after the client reconnects', async () => {
  const before = resumes.length;
  const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
  expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('Reconnection test completed') }]);
  // The client came back with Last-Event-ID, and the result reached it on that resumed stream.
  const during = resumes.slice(before);
  expect(during.length).toBeGreaterThanOrEqual(1);
  expect(during.find((resume) => resume.body.includes('Reconnection test completed'))).toEqual({ lastEventId: expect.any(String), body: expect.any(String) });
});

test('resources: static text, static binary and the template', async () => {
  const { resources } = await client.listResources();
  expect(resources.map((resource) => resource.uri)).toEqual([
    'test://static-text',
    'test://static-binary',
    'test://watched-resource',
    // The SKILL.md of each skill (examples/everything/skills.ts); spec/skills/skills-client.test.ts reads them.
    'skill://acme/billing/refund-policy/SKILL.md',
    'skill://generated/release-notes/SKILL.md',
    'skill://pdf-processing/SKILL.md',
  ]);

  const text = await client.readResource({ uri: 'test://static-text' });
  expect(text.contents).toEqual([{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);

  const [binary] = (await client.readResource({ uri: 'test://static-binary' })).contents;
  expect(binary).toMatchObject({ uri: 'test://static-binary', mimeType: 'image/png' });
  expect('blob' in binary && Buffer.from(binary.blob, 'base64').subarray(1, 4).toString('ascii')).toBe('PNG');

  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['test://template/{id}/data']);
  const fromTemplate = await client.readResource({ uri: 'test://template/123/data' });
  expect(fromTemplate.contents).toEqual([
    { uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' },
  ]);

  await expect(client.subscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual({});
  await expect(client.unsubscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual({});
});

test('prompts: arguments are substituted and arg1 completes', async () => {
  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } });
  expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } }]);

  const embedded = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://anything' } });
  expect(embedded.messages[0].content).toMatchObject({ type: 'resource', resource: { uri: 'test://anything' } });

  const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'pa' } });
  expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
});
