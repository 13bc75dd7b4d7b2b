import { z } from 'zod';
import type { McpServer } from 'mcp-express';

// JSON Schema 2020-12 keywords zod cannot express are declared with `.meta()`, which `z.toJSONSchema` copies into
// the listed schema (they are advertised to clients; the server's own check of the arguments is zod's). The `id` puts the address schema under `$defs` and refers to it with `$ref`. Built once per
// process: zod's global registry refuses a second schema with the same id.
const address = z.object({ street: z.string().optional(), city: z.string().optional() }).meta({ id: 'address', $anchor: 'addressDef' });

const contactInput = z
  .strictObject({
    name: z.string().optional(),
    address: address.optional(),
    contactMethod: z.enum(['phone', 'email']).optional(),
    phone: z.string().optional(),
    email: z.string().optional(),
  })
  .meta({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
  });

/** A tool whose input schema uses `$schema`, `$defs`/`$anchor`/`$ref`, `allOf`/`anyOf` and `if`/`then`/`else` (SEP-1613, SEP-2106). */
export function registerJsonSchemaTool(server: McpServer): void {
  server.tool('json_schema_2020_12_tool', { description: 'Tool with JSON Schema 2020-12 features', inputSchema: contactInput }, (args) => ({
    content: [{ type: 'text', text: `Contact received: ${JSON.stringify(args)}` }],
  }));
}
