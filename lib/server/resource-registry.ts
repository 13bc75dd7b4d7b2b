import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';
import { describeValue, ownValue } from '../protocol/safe-text.js';
import type { Annotations, ReadResourceResult } from '../protocol/types.js';
import type { RequestContext } from './request-context.js';
import { UriTemplate } from './uri-template.js';

export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  /** Size in bytes, if known. */
  size?: number;
  _meta?: Record<string, unknown>;
  /**
   * OAuth scopes a caller's token must carry to read this resource (or, on a template, any resource it matches);
   * a token without them gets the spec's step-up challenge (HTTP 403 `insufficient_scope`). Not listed.
   * Defaults to none.
   */
  requiredScopes?: string[];
}

/** A resource as `resources/list` shows it. */
export interface ListedResource extends Omit<ResourceMetadata, 'requiredScopes'> {
  uri: string;
  name: string;
}

export type CompleteCallback = (value: string, context: { arguments?: Record<string, string> }) => string[] | Promise<string[]>;

export interface ResourceTemplateConfig extends ResourceMetadata {
  /** Lists the concrete resources the template covers, for `resources/list`. Default: none listed. */
  list?: (ctx: RequestContext) => ListedResource[] | Promise<ListedResource[]>;
  /** Completions for template variables, for `completion/complete` with `ref/resource`. */
  complete?: Record<string, CompleteCallback>;
}

export type ReadResourceCallback = (uri: URL, ctx: RequestContext) => ReadResourceResult | Promise<ReadResourceResult>;
export type ReadTemplateCallback<Variables = Record<string, string>> = (uri: URL, variables: Variables, ctx: RequestContext) => ReadResourceResult | Promise<ReadResourceResult>;

/**
 * The variables of a URI template, by name: `TemplateVariables<'file:///{+path}{#part}'>` is
 * `{ path: string; part: string }`. A template that is not a literal type gets `Record<string, string>`.
 */
export type TemplateVariables<Template extends string> = string extends Template ? Record<string, string> : { [Name in TemplateVariableNames<Template>]: string };

/** The names in the `{…}` expressions of a template (operators `+` and `#`, comma-separated lists). */
export type TemplateVariableNames<Template extends string> = Template extends `${string}{${infer Expression}}${infer Rest}`
  ? ExpressionNames<Expression> | TemplateVariableNames<Rest>
  : never;

type ExpressionNames<Expression extends string> = Expression extends `+${infer List}` ? ListNames<List> : Expression extends `#${infer List}` ? ListNames<List> : ListNames<Expression>;

type ListNames<List extends string> = List extends `${infer Name},${infer More}` ? Name | ListNames<More> : List;

/** A registered resource or template; changing it sends `notifications/resources/list_changed`. */
export interface RegisteredResource {
  readonly name: string;
  remove(): void;
}

/**
 * The longest `params.uri` `resources/read` accepts, in UTF-16 code units (JavaScript string length). A longer one
 * is refused with -32602 before it is looked up or matched against any template: no real resource URI comes near
 * it, and it bounds the work a client can ask for in one request.
 */
export const MAX_URI_LENGTH = 16384;

interface StaticEntry { descriptor: ListedResource; read: ReadResourceCallback; requiredScopes?: readonly string[] }
interface TemplateEntry { name: string; template: UriTemplate; config: ResourceTemplateConfig; descriptor: Record<string, unknown>; read: ReadTemplateCallback; requiredScopes?: readonly string[] }

export class ResourceRegistry {
  private readonly resources = new Map<string, StaticEntry>();
  private readonly templates = new Map<string, TemplateEntry>();

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.resources.size + this.templates.size;
  }

  register(name: string, uri: string, metadata: ResourceMetadata, read: ReadResourceCallback): RegisteredResource {
    if (this.resources.has(uri)) throw new TypeError(`A resource with URI "${uri}" is already registered; remove() it first.`);
    new URL(uri); // throws TypeError for a URI that is not absolute
    const { requiredScopes, ...listed } = metadata;
    const entry: StaticEntry = { descriptor: { uri, name, ...listed }, read, requiredScopes: requiredScopes?.length ? [...requiredScopes] : undefined };
    this.resources.set(uri, entry);
    this.onChange();
    return {
      name,
      remove: () => {
        if (this.resources.get(uri) === entry && this.resources.delete(uri)) this.onChange();
      },
    };
  }

  registerTemplate(name: string, uriTemplate: string, config: ResourceTemplateConfig, read: ReadTemplateCallback): RegisteredResource {
    if (this.templates.has(name)) throw new TypeError(`A resource template named "${name}" is already registered; remove() it first.`);
    const { list: _list, complete: _complete, requiredScopes, ...metadata } = config;
    const entry: TemplateEntry = {
      name,
      template: new UriTemplate(uriTemplate),
      config,
      descriptor: { uriTemplate, name, ...metadata },
      read,
      requiredScopes: requiredScopes?.length ? [...requiredScopes] : undefined,
    };
    this.templates.set(name, entry);
    this.onChange();
    return {
      name,
      remove: () => {
        if (this.templates.get(name) === entry && this.templates.delete(name)) this.onChange();
      },
    };
  }

  async list(ctx: RequestContext): Promise<ListedResource[]> {
    const listed: ListedResource[] = [];
    for (const entry of this.resources.values()) listed.push(entry.descriptor);
    for (const entry of this.templates.values()) {
      if (entry.config.list) listed.push(...(await entry.config.list(ctx)));
    }
    return listed;
  }

  listTemplates(): Record<string, unknown>[] {
    return Array.from(this.templates.values(), (entry) => entry.descriptor);
  }

  async read(params: Record<string, unknown> | undefined, ctx: RequestContext, notFoundCode: number): Promise<ReadResourceResult> {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/read needs params.uri');
    if (uri.length > MAX_URI_LENGTH) {
      throw new McpError(ErrorCode.InvalidParams, `resources/read params.uri is ${uri.length} characters long; the limit is ${MAX_URI_LENGTH}`, { maxUriLength: MAX_URI_LENGTH });
    }
    const exact = this.resources.get(uri);
    if (exact) return exact.read(new URL(uri), ctx);
    for (const entry of this.templates.values()) {
      const variables = entry.template.match(uri);
      if (variables) return entry.read(parseUri(uri), variables, ctx);
    }
    throw new McpError(notFoundCode, `Resource not found: ${uri}`, { uri });
  }

  /** The `requiredScopes` of the resource `resources/read` would serve for `uri` (exact match first, then templates). */
  requiredScopes(uri: string): readonly string[] | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined;
    const exact = this.resources.get(uri);
    if (exact) return exact.requiredScopes;
    for (const entry of this.templates.values()) {
      if (entry.template.match(uri)) return entry.requiredScopes;
    }
    return undefined;
  }

  /** True when some resource or template has `requiredScopes` (reads of others need no lookup). */
  hasRequiredScopes(): boolean {
    for (const entry of this.resources.values()) if (entry.requiredScopes) return true;
    for (const entry of this.templates.values()) if (entry.requiredScopes) return true;
    return false;
  }

  templateCompleter(uriTemplate: string, argument: string): CompleteCallback | undefined {
    for (const entry of this.templates.values()) {
      if (entry.template.template === uriTemplate) return ownValue(entry.config.complete, argument);
    }
    return undefined;
  }

  hasCompletions(): boolean {
    for (const entry of this.templates.values()) if (entry.config.complete) return true;
    return false;
  }
}

/** `uri` as a URL; one a template matched but that is no valid URL (`test://a b/c`) is the client's error: -32602. */
function parseUri(uri: string): URL {
  try {
    return new URL(uri);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: resources/read params.uri is not a valid URI: ${describeValue(uri)}`, { uri });
  }
}
