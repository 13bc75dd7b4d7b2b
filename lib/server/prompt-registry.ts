import { z } from 'zod';
import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import { ownValue } from '../protocol/safe-text.js';
import type { GetPromptResult } from '../protocol/types.js';
import type { RequestContext } from './request-context.js';
import type { CompleteCallback } from './resource-registry.js';
import { describeZodError } from './zod-json-schema.js';

/** Prompt arguments are strings on the wire; optional ones are `z.string().optional()`. */
export type PromptArgsShape = Record<string, z.ZodType<string | undefined>>;

export interface PromptConfig<Args extends PromptArgsShape | undefined = undefined> {
  title?: string;
  description?: string;
  /** The arguments, as a raw zod shape; `.describe()` texts become the argument descriptions. Default: none. */
  argsSchema?: Args;
  /** Completions for arguments, for `completion/complete` with `ref/prompt`. */
  complete?: Record<string, CompleteCallback>;
  _meta?: Record<string, unknown>;
  /** OAuth scopes a caller's token must carry to get this prompt (403 `insufficient_scope` otherwise). Defaults to none. */
  requiredScopes?: string[];
}

export type PromptHandler<Args> = (
  args: Args extends PromptArgsShape ? z.output<z.ZodObject<Args>> : Record<string, never>,
  ctx: RequestContext,
) => GetPromptResult | Promise<GetPromptResult>;

export interface RegisteredPrompt {
  readonly name: string;
  remove(): void;
}

interface PromptEntry {
  schema: z.ZodType | undefined;
  descriptor: Record<string, unknown>;
  complete: Record<string, CompleteCallback> | undefined;
  handler: (args: unknown, ctx: RequestContext) => GetPromptResult | Promise<GetPromptResult>;
  requiredScopes: readonly string[] | undefined;
}

export class PromptRegistry {
  private readonly prompts = new Map<string, PromptEntry>();
  private listCache: Record<string, unknown>[] | undefined;

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.prompts.size;
  }

  register<Args extends PromptArgsShape | undefined>(name: string, config: PromptConfig<Args>, handler: PromptHandler<Args>): RegisteredPrompt {
    if (this.prompts.has(name)) throw new TypeError(`Prompt "${name}" is already registered; remove() it first.`);
    const descriptor: Record<string, unknown> = { name };
    if (config.title !== undefined) descriptor.title = config.title;
    if (config.description !== undefined) descriptor.description = config.description;
    let schema: z.ZodType | undefined;
    if (config.argsSchema) {
      schema = z.object(config.argsSchema as PromptArgsShape);
      descriptor.arguments = Object.entries(config.argsSchema as PromptArgsShape).map(([argName, argSchema]) => {
        const argument: Record<string, unknown> = { name: argName, required: !argSchema.safeParse(undefined).success };
        if (argSchema.description) argument.description = argSchema.description;
        return argument;
      });
    }
    if (config._meta !== undefined) descriptor._meta = config._meta;
    const requiredScopes = config.requiredScopes?.length ? [...config.requiredScopes] : undefined;
    const entry: PromptEntry = { schema, descriptor, complete: config.complete, handler: handler as PromptEntry['handler'], requiredScopes };
    this.prompts.set(name, entry);
    this.changed();
    return {
      name,
      remove: () => {
        if (this.prompts.get(name) === entry && this.prompts.delete(name)) this.changed();
      },
    };
  }

  list(): Record<string, unknown>[] {
    this.listCache ??= Array.from(this.prompts.values(), (entry) => entry.descriptor);
    return this.listCache;
  }

  async get(params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<GetPromptResult> {
    const name = params?.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'prompts/get needs params.name');
    const entry = this.prompts.get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    let args: unknown = params?.arguments ?? {};
    if (entry.schema) {
      const parsed = entry.schema.safeParse(args);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${describeZodError(parsed.error)}`);
      args = parsed.data;
    }
    return entry.handler(args, ctx);
  }

  /** The `requiredScopes` of a prompt, if it has any. */
  requiredScopes(name: string): readonly string[] | undefined {
    return this.prompts.get(name)?.requiredScopes;
  }

  completer(name: string, argument: string): CompleteCallback | undefined {
    return ownValue(this.prompts.get(name)?.complete, argument);
  }

  hasCompletions(): boolean {
    for (const entry of this.prompts.values()) if (entry.complete) return true;
    return false;
  }

  private changed(): void {
    this.listCache = undefined;
    this.onChange();
  }
}
