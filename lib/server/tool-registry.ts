import type { z } from 'zod';
import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import type { CallToolResult, ToolAnnotations } from '../protocol/types.js';
import type { TaskSupport } from '../tasks/task-constants.js';
import type { RequestContext } from './request-context.js';
import { ToolOutputError } from './tool-output-error.js';
import { describeZodError, toObjectJsonSchema, toZodSchema, type ZodObjectInput } from './zod-json-schema.js';

/** The arguments a handler receives for an input schema given as a zod schema or raw shape. */
export type InferArgs<S> = S extends z.ZodType
  ? z.output<S>
  : S extends z.ZodRawShape
    ? z.output<z.ZodObject<S>>
    : Record<string, unknown>;

export interface ToolConfig<Input extends ZodObjectInput | undefined = undefined, Output extends ZodObjectInput | undefined = undefined> {
  /** Human-readable name for display. */
  title?: string;
  /** What the tool does; models read this. */
  description?: string;
  /** The arguments, as zod: `{ a: z.number() }` or `z.object({...})`. Default: no arguments. */
  inputSchema?: Input;
  /**
   * Declares `structuredContent`, as zod: the handler's result is typed by it and checked against it. Defaults to
   * none.
   */
  outputSchema?: Output;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /** Extra JSON Schema keys merged into individual properties of the listed `inputSchema`, e.g. `{ region: { 'x-mcp-header': 'Region' } }`. */
  propertyAnnotations?: Record<string, Record<string, unknown>>;
  /**
   * Whether a call may run as a task (tasks extension, docs/tasks.md): `'optional'` lets the server make a slow
   * call a task when the client allows it, `'required'` runs it only as a task (clients that cannot are refused),
   * `'none'` never. The same handler serves both ways. Listed as `execution.taskSupport`. Defaults to `'none'`.
   */
  taskSupport?: TaskSupport;
  /**
   * OAuth scopes a caller's token must carry to call this tool; a token without them gets the spec's step-up
   * challenge (HTTP 403 `insufficient_scope` naming the scopes). Defaults to none (any authenticated caller).
   */
  requiredScopes?: string[];
}

/**
 * What a tool handler returns: with an `outputSchema`, `structuredContent` is typed by it (an error result,
 * `isError: true`, may leave it out).
 */
export type ToolResult<Output = undefined> = Output extends ZodObjectInput ? CallToolResult & { structuredContent?: InferArgs<Output> } : CallToolResult;

export type ToolHandler<Input, Output = undefined> = (args: InferArgs<Input>, ctx: RequestContext) => ToolResult<Output> | Promise<ToolResult<Output>>;

/** A registered tool; changing it sends `notifications/tools/list_changed`. */
export interface RegisteredTool {
  readonly name: string;
  enable(): void;
  disable(): void;
  remove(): void;
  readonly enabled: boolean;
}

interface ToolEntry {
  name: string;
  enabled: boolean;
  input: z.ZodType | undefined;
  output: z.ZodType | undefined;
  descriptor: Record<string, unknown>;
  handler: (args: unknown, ctx: RequestContext) => CallToolResult | Promise<CallToolResult>;
  taskSupport: TaskSupport;
  requiredScopes: readonly string[] | undefined;
  /** Argument name → its `x-mcp-header` name, for the arguments that have one; undefined when none has. */
  paramHeaders: ReadonlyMap<string, string> | undefined;
}

/** Argument types a `Mcp-Param-*` header can mirror (SEP-2243). */
const HEADER_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

const TOOL_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

/** Tools by name, with the `tools/list` result cached until a tool changes. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private listCache: Record<string, unknown>[] | undefined;

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.tools.size;
  }

  register<Input extends ZodObjectInput | undefined, Output extends ZodObjectInput | undefined>(name: string, config: ToolConfig<Input, Output>, handler: ToolHandler<Input, Output>): RegisteredTool {
    if (!TOOL_NAME.test(name)) {
      throw new TypeError(`Tool name "${name}" is invalid: use 1-128 characters from A-Z, a-z, 0-9, _ - . /`);
    }
    if (this.tools.has(name)) throw new TypeError(`Tool "${name}" is already registered; remove() it first to replace it.`);
    const input = toZodSchema(config.inputSchema);
    const output = toZodSchema(config.outputSchema);
    const inputJson = toObjectJsonSchema(input, 'input');
    if (config.propertyAnnotations) {
      const properties = (inputJson.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [property, extra] of Object.entries(config.propertyAnnotations)) {
        if (!properties[property]) throw new TypeError(`Tool "${name}": propertyAnnotations names "${property}", which is not in its inputSchema.`);
        if ('x-mcp-header' in extra && !HEADER_TYPES.has(String(properties[property].type))) {
          throw new TypeError(`Tool "${name}": x-mcp-header needs a string, integer or boolean argument; "${property}" is ${JSON.stringify(properties[property].type)} (use z.string(), z.number().int() or z.boolean()).`);
        }
        Object.assign(properties[property], extra);
      }
    }
    const descriptor: Record<string, unknown> = { name, inputSchema: inputJson };
    if (config.title !== undefined) descriptor.title = config.title;
    if (config.description !== undefined) descriptor.description = config.description;
    if (output) descriptor.outputSchema = toObjectJsonSchema(output, 'output');
    if (config.annotations !== undefined) descriptor.annotations = config.annotations;
    if (config._meta !== undefined) descriptor._meta = config._meta;
    const taskSupport = config.taskSupport ?? 'none';
    if (!['none', 'optional', 'required'].includes(taskSupport)) throw new TypeError(`Tool "${name}": taskSupport must be 'none', 'optional' or 'required' (got ${String(taskSupport)}).`);
    if (taskSupport !== 'none') descriptor.execution = { taskSupport };
    const requiredScopes = config.requiredScopes?.length ? [...config.requiredScopes] : undefined;
    const entry: ToolEntry = { name, enabled: true, input, output, descriptor, handler: handler as ToolEntry['handler'], requiredScopes, taskSupport, paramHeaders: paramHeadersOf(inputJson) };
    this.tools.set(name, entry);
    this.changed();
    const registry = this;
    return {
      name,
      get enabled() {
        return entry.enabled;
      },
      enable() {
        if (!entry.enabled) {
          entry.enabled = true;
          registry.changed();
        }
      },
      disable() {
        if (entry.enabled) {
          entry.enabled = false;
          registry.changed();
        }
      },
      remove() {
        if (registry.tools.get(name) === entry) {
          registry.tools.delete(name);
          registry.changed();
        }
      },
    };
  }

  /** The `requiredScopes` of an enabled tool, if it has any. */
  requiredScopes(name: string): readonly string[] | undefined {
    const entry = this.tools.get(name);
    return entry?.enabled ? entry.requiredScopes : undefined;
  }

  /** The `taskSupport` of an enabled tool; undefined for unknown or disabled tools. */
  taskSupport(name: string): TaskSupport | undefined {
    const entry = this.tools.get(name);
    return entry?.enabled ? entry.taskSupport : undefined;
  }

  /**
   * The `x-mcp-header` names of an enabled tool's arguments (argument name → header name), for the `Mcp-Param-*`
   * checks of 2026-07-28 requests; undefined for unknown or disabled tools and for tools with none.
   */
  paramHeaders(name: string): ReadonlyMap<string, string> | undefined {
    const entry = this.tools.get(name);
    return entry?.enabled ? entry.paramHeaders : undefined;
  }

  /** The listed descriptor of an enabled tool (its JSON Schemas included), for the observer and tests. */
  descriptor(name: string): Record<string, unknown> | undefined {
    const entry = this.tools.get(name);
    return entry?.enabled ? entry.descriptor : undefined;
  }

  list(): Record<string, unknown>[] {
    if (!this.listCache) {
      this.listCache = [];
      for (const entry of this.tools.values()) if (entry.enabled) this.listCache.push(entry.descriptor);
    }
    return this.listCache;
  }

  /**
   * Calls a tool: its arguments checked, its handler run, its result checked. Chains onto the handler's result with
   * one `then` (an async function awaiting it took two promise steps). An unknown tool is thrown, not rejected:
   * callers run this inside `try` (a session's dispatch, the stateless run) or an async function (tasks).
   */
  call(params: Record<string, unknown> | undefined, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
    const name = params?.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of the tool to call');
    const entry = this.tools.get(name);
    if (!entry || !entry.enabled) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const rawArgs = params?.arguments ?? {};
    let args: unknown = rawArgs;
    if (entry.input) {
      const parsed = entry.input.safeParse(rawArgs);
      if (!parsed.success) {
        return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${describeZodError(parsed.error)}` }], isError: true };
      }
      args = parsed.data;
    }
    let produced: CallToolResult | PromiseLike<CallToolResult>;
    try {
      produced = entry.handler(args, ctx);
    } catch (error) {
      produced = Promise.reject(error);
    }
    // Through a promise even when the handler answered at once: its result then reaches the request's stream after
    // the HTTP layer has begun reading it, so a result larger than maxBufferedBytesPerStream is handed to the
    // writer rather than queued beside a writer not yet there (which would count as a slow reader).
    return Promise.resolve(produced).then((result) => checkedResult(entry, result), toolFailure);
  }

  private changed(): void {
    this.listCache = undefined;
    this.onChange();
  }
}

/** The arguments of a listed input schema that carry `x-mcp-header`, by argument name; undefined when none does. */
function paramHeadersOf(inputJson: Record<string, unknown>): ReadonlyMap<string, string> | undefined {
  const found = new Map<string, string>();
  const properties = (inputJson.properties ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const [argument, schema] of Object.entries(properties)) {
    if (typeof schema?.['x-mcp-header'] === 'string') found.set(argument, schema['x-mcp-header']);
  }
  return found.size > 0 ? found : undefined;
}

/** What a tool's handler threw (or rejected with): the client's isError result, unless it is the protocol's. */
function toolFailure(error: unknown): CallToolResult {
  if (error instanceof McpError || isControlSignal(error)) throw error;
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A handler's result, checked against the tool's outputSchema when it has one (a ToolOutputError when it fails). */
function checkedResult(entry: ToolEntry, result: CallToolResult): CallToolResult {
  if (entry.output && !result.isError) {
    if (result.structuredContent === undefined) {
      throw new ToolOutputError(`Tool ${entry.name} declares an outputSchema but returned no structuredContent`);
    }
    const checked = entry.output.safeParse(result.structuredContent);
    if (!checked.success) {
      throw new ToolOutputError(`Tool ${entry.name} returned structuredContent that does not match its outputSchema: ${describeZodError(checked.error)}`);
    }
  }
  return result;
}

/** Errors that steer the dispatcher (2026-07-28 input_required) rather than report a tool failure. */
export function isControlSignal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { mcpControl?: unknown }).mcpControl === true;
}
