import { z } from 'zod';

/** A zod object schema, or the raw shape `{ a: z.number() }` that `z.object` would take. */
export type ZodObjectInput = z.ZodRawShape | z.ZodType;

/** Normalises a raw shape into a `z.object`; passes a schema through. Built once, at registration. */
export function toZodSchema(input: ZodObjectInput | undefined): z.ZodType | undefined {
  if (input === undefined) return undefined;
  if (input instanceof z.ZodType) return input;
  return z.object(input as z.ZodRawShape);
}

/**
 * JSON Schema for a tool's `inputSchema`/`outputSchema`, from zod's own `z.toJSONSchema`.
 * The `$schema` zod adds is dropped: MCP's default dialect is 2020-12 already, and clients that validate with
 * draft-07 validators (ajv's default) refuse an unknown `$schema`. One the author declared with
 * `.meta({ $schema })` is kept (SEP-1613: servers must not strip it).
 */
export function toObjectJsonSchema(schema: z.ZodType | undefined, io: 'input' | 'output'): Record<string, unknown> {
  if (!schema) return { type: 'object', properties: {} };
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  if (z.globalRegistry.get(schema)?.$schema === undefined) delete json.$schema;
  if (json.type !== 'object') {
    throw new TypeError(`A tool schema must describe an object (got ${JSON.stringify(json.type)}); wrap the fields in z.object({...}).`);
  }
  return json;
}

/** One line naming each invalid field, for error messages a model or a user can act on. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
