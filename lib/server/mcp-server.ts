import { defaultOnError } from '../defaults.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { methodSpec } from '../protocol/methods.js';
import { isStatelessEraVersion } from '../protocol/versions.js';
import { LOGGING_LEVELS, type Implementation, type LoggingLevel, type ReadResourceResult, type ServerCapabilities } from '../protocol/types.js';
import { PromptRegistry, type PromptArgsShape, type PromptConfig, type PromptHandler, type RegisteredPrompt } from './prompt-registry.js';
import type { RequestContext } from './request-context.js';
import {
  MAX_URI_LENGTH,
  ResourceRegistry,
  type CompleteCallback,
  type ListedResource,
  type ReadResourceCallback,
  type ReadTemplateCallback,
  type TemplateVariables,
  type RegisteredResource,
  type ResourceMetadata,
  type ResourceTemplateConfig,
} from './resource-registry.js';
import { ToolRegistry, type RegisteredTool, type ToolConfig, type ToolHandler } from './tool-registry.js';
import type { ZodObjectInput } from './zod-json-schema.js';
import { TASKS_EXTENSION_ID } from '../tasks/task-constants.js';
import type { TaskOptions } from '../tasks/task-options.js';
import { legacyTask, TaskService, type TaskStatusListener } from '../tasks/task-service.js';

export interface McpServerOptions {
  /** Text for the client's model about how to use this server, sent in the initialize result. Default: none. */
  instructions?: string;
  /**
   * Capabilities to advertise in addition to (or instead of) the ones derived from what is registered.
   * Default: `tools` and `prompts` (with `listChanged`), `resources` (with `subscribe` and `listChanged`),
   * `completions` (when a prompt or template has completers) and `logging` (always), each advertised when
   * something of that kind is registered. The merge is shallow: a key given here replaces the derived one.
   */
  capabilities?: ServerCapabilities;
  /** `ttlMs`/`cacheScope` of list and read results in the 2026-07-28 era. Default: `{ ttlMs: 0, cacheScope: 'public' }`. */
  cache?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
  /**
   * The tasks extension (docs/tasks.md): where tasks are stored and how long calls wait before becoming tasks.
   * Tasks are served as soon as a tool declares `taskSupport` (or this option is given). Defaults to an
   * `InMemoryTaskStore` and the defaults listed in `TaskOptions`.
   */
  tasks?: TaskOptions;
  /**
   * Receives exceptions thrown by the listeners of server events (list_changed, resource updates). Default: the
   * `onError` of the `mcpMiddleware` serving this server (whose own default is `console.error`).
   */
  onError?: (error: unknown) => void;
}

/** A low-level request handler: gets the raw params, returns the raw result. */
export type RequestHandler = (params: Record<string, unknown> | undefined, ctx: RequestContext) => Record<string, unknown> | Promise<Record<string, unknown>>;
export type NotificationHandler = (params: Record<string, unknown> | undefined, ctx: NotificationContext) => void | Promise<void>;

export interface NotificationContext {
  sessionId: string | undefined;
  authInfo: unknown;
}

/** A notification the server wants every interested client to get, with the resource URI for `resources/updated`. */
export interface ServerEvent {
  notification: JsonRpcNotification;
  /** Set for `notifications/resources/updated`: only clients subscribed to this URI get it. */
  resourceUri?: string;
  /** Set for a notification meant for one session only (`notifications/tasks/status`): no other session gets it. */
  sessionId?: string;
  /** Opt-in name for 2026-07-28 `subscriptions/listen` filters (`taskStatus` is for sessions, never listened to). */
  kind: 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged' | 'resourceUpdated' | 'taskStatus';
}

export type ServerEventListener = (event: ServerEvent) => void;

/**
 * Serves every resource whose URI starts with a prefix (e.g. `skill://`), for extensions whose resources are
 * not registered one by one. `read` gets the URI exactly as the client sent it.
 */
export interface ResourceProvider {
  /** Answers `resources/read`; throw an `McpError` for a URI it does not serve. */
  read(uri: string, ctx: RequestContext): ReadResourceResult | Promise<ReadResourceResult>;
  /** Resources added to `resources/list`. Default: none. */
  list?(ctx: RequestContext): ListedResource[] | Promise<ListedResource[]>;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const loggingLevels: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/**
 * An MCP server: tools, resources, prompts and completions, dispatched by method. Build it once at start-up
 * and hand it to `mcpMiddleware`; it serves every session and every request.
 */
export class McpServer {
  readonly info: Implementation;
  readonly options: McpServerOptions;
  private readonly toolRegistry: ToolRegistry;
  private readonly resourceRegistry: ResourceRegistry;
  private readonly promptRegistry: PromptRegistry;
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly listeners = new Set<ServerEventListener>();
  private readonly taskStatusListeners = new Set<TaskStatusListener>();
  /** Methods a user set with `setRequestHandler`: served whatever the derived capabilities say. */
  private readonly customHandlers = new Set<string>();
  /** `resources/read` prefixes served by providers (extensions), tried before the registry. */
  private readonly resourceProviders = new Map<string, ResourceProvider>();
  /** Settings of the extensions declared with `declareExtension`, advertised under `capabilities.extensions`. */
  private readonly extensions = new Map<string, Record<string, unknown>>();
  private capabilitiesCache: ServerCapabilities | undefined;
  /** Where errors go when `options.onError` is not set: the middleware's `onError` once one serves this server. */
  private errorSink: (error: unknown) => void = defaultOnError;
  private servedCache: Map<string, RequestHandler> | undefined;
  private taskService: TaskService | undefined;

  constructor(info: Implementation, options: McpServerOptions = {}) {
    if (!info?.name || !info?.version) throw new TypeError('new McpServer({ name, version }) needs both a name and a version.');
    this.info = info;
    this.options = options;
    this.toolRegistry = new ToolRegistry(() => this.emitListChanged('notifications/tools/list_changed', 'toolsListChanged'));
    this.resourceRegistry = new ResourceRegistry(() => this.emitListChanged('notifications/resources/list_changed', 'resourcesListChanged'));
    this.promptRegistry = new PromptRegistry(() => this.emitListChanged('notifications/prompts/list_changed', 'promptsListChanged'));
    this.installStandardHandlers();
    if (options.tasks) this.enableTasks();
  }

  /** Registers a tool. Its zod input schema is listed as JSON Schema and checked on every call. */
  tool<Input extends ZodObjectInput | undefined = undefined, Output extends ZodObjectInput | undefined = undefined>(
    name: string,
    config: ToolConfig<Input, Output>,
    handler: ToolHandler<Input, Output>,
  ): RegisteredTool {
    const registered = this.toolRegistry.register(name, config, handler);
    if (config.taskSupport !== undefined && config.taskSupport !== 'none') this.enableTasks();
    return registered;
  }

  /** @internal The tasks extension of this server, once a tool declared task support (or `options.tasks` was given). */
  get tasks(): TaskService | undefined {
    return this.taskService;
  }

  /** Serves the tasks methods and advertises the extension (once). */
  private enableTasks(): void {
    if (this.taskService) return;
    const tasks = (this.taskService = new TaskService({ onError: this.options.onError, ...this.options.tasks }));
    this.handlers.set('tasks/get', (params, ctx) => tasks.get(params, ctx));
    this.handlers.set('tasks/update', (params, ctx) => tasks.update(params, ctx));
    this.handlers.set('tasks/cancel', (params, ctx) => tasks.cancel(params, ctx));
    this.handlers.set('tasks/result', (params, ctx) => tasks.result(params, ctx));
    this.handlers.set('tasks/list', (params, ctx) => tasks.list(params, ctx));
    this.declareExtension(TASKS_EXTENSION_ID, {});
    tasks.addStatusListener((task) => {
      // 2025-11-25: the session that created the task hears of it on its GET stream, on whichever instance holds it.
      if (task.sessionId !== undefined) {
        this.emit({ kind: 'taskStatus', sessionId: task.sessionId, notification: { jsonrpc: '2.0', method: 'notifications/tasks/status', params: legacyTask(task) } });
      }
      for (const listener of this.taskStatusListeners) listener(task);
    });
  }

  /**
   * @internal The middleware listens for task status changes to publish them to every instance's
   * `subscriptions/listen` streams. Works whether or not tasks are on yet.
   */
  addTaskStatusListener(listener: TaskStatusListener): () => void {
    this.taskStatusListeners.add(listener);
    return () => this.taskStatusListeners.delete(listener);
  }

  /** Registers a resource at a fixed URI. */
  resource(name: string, uri: string, metadata: ResourceMetadata, read: ReadResourceCallback): RegisteredResource {
    return this.resourceRegistry.register(name, uri, metadata, read);
  }

  /**
   * Registers a resource template (RFC 6570, e.g. `file:///{path}`); `read` gets the URI's variables, typed by
   * the template's names (`{ path: string }`) when the template is a literal.
   */
  resourceTemplate<Template extends string>(name: string, uriTemplate: Template, config: ResourceTemplateConfig, read: ReadTemplateCallback<TemplateVariables<Template>>): RegisteredResource {
    return this.resourceRegistry.registerTemplate(name, uriTemplate, config, read as ReadTemplateCallback);
  }

  /** Registers a prompt with string arguments declared as a zod shape. */
  prompt<Args extends PromptArgsShape | undefined = undefined>(name: string, config: PromptConfig<Args>, handler: PromptHandler<Args>): RegisteredPrompt {
    return this.promptRegistry.register(name, config, handler);
  }

  /** Serves (or overrides) a request method with a low-level handler that gets raw params. */
  setRequestHandler(method: string, handler: RequestHandler): void {
    this.customHandlers.add(method);
    this.handlers.set(method, handler);
    this.capabilitiesCache = undefined;
    this.servedCache = undefined;
  }

  /**
   * Serves `resources/read` for every URI starting with `prefix` (checked before registered resources and
   * templates) and adds `provider.list()` to `resources/list`. Advertises `resources`. For extensions.
   */
  resourceProvider(prefix: string, provider: ResourceProvider): RegisteredResource {
    if (!prefix) throw new TypeError('resourceProvider(prefix, provider) needs a non-empty URI prefix, e.g. "skill://".');
    if (this.resourceProviders.has(prefix)) throw new TypeError(`A resource provider for "${prefix}" is already registered; remove() it first.`);
    this.resourceProviders.set(prefix, provider);
    this.emitListChanged('notifications/resources/list_changed', 'resourcesListChanged');
    return {
      name: prefix,
      remove: () => {
        if (this.resourceProviders.get(prefix) === provider && this.resourceProviders.delete(prefix)) {
          this.emitListChanged('notifications/resources/list_changed', 'resourcesListChanged');
        }
      },
    };
  }

  /**
   * Advertises an extension under `capabilities.extensions[id]` (in `server/discover` and `initialize`) with its
   * settings object (`{}`, the default, for none). `null` withdraws it.
   */
  declareExtension(id: string, settings: Record<string, unknown> | null = {}): void {
    if (settings === null) this.extensions.delete(id);
    else this.extensions.set(id, settings);
    this.capabilitiesCache = undefined;
    this.servedCache = undefined;
  }

  /** Handles a client notification (e.g. `notifications/roots/list_changed`). */
  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /** Tells clients the tool list changed. Registering, removing, enabling or disabling a tool does this by itself. */
  notifyToolsListChanged(): void {
    this.emitListChanged('notifications/tools/list_changed', 'toolsListChanged');
  }

  /** Tells clients the prompt list changed (done automatically when prompts are added or removed). */
  notifyPromptsListChanged(): void {
    this.emitListChanged('notifications/prompts/list_changed', 'promptsListChanged');
  }

  /** Tells clients the resource list changed (done automatically when resources are added or removed). */
  notifyResourcesListChanged(): void {
    this.emitListChanged('notifications/resources/list_changed', 'resourcesListChanged');
  }

  /** Tells subscribed clients that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void {
    this.emit({ kind: 'resourceUpdated', resourceUri: uri, notification: { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } } });
  }

  /** The capabilities advertised to clients: derived from registrations, merged with `options.capabilities`. */
  capabilities(): ServerCapabilities {
    return (this.capabilitiesCache ??= this.deriveCapabilities());
  }

  private deriveCapabilities(): ServerCapabilities {
    const derived: ServerCapabilities = { logging: {} };
    if (this.toolRegistry.size > 0 || this.customHandlers.has('tools/list')) derived.tools = { listChanged: true };
    if (this.resourceRegistry.size > 0 || this.resourceProviders.size > 0 || this.customHandlers.has('resources/list')) derived.resources = { subscribe: true, listChanged: true };
    if (this.promptRegistry.size > 0 || this.customHandlers.has('prompts/list')) derived.prompts = { listChanged: true };
    if (this.promptRegistry.hasCompletions() || this.resourceRegistry.hasCompletions() || this.customHandlers.has('completion/complete')) derived.completions = {};
    const extensions = { ...Object.fromEntries(this.extensions), ...(this.options.capabilities?.extensions as Record<string, unknown> | undefined) };
    const merged: ServerCapabilities = { ...derived, ...this.options.capabilities };
    if (Object.keys(extensions).length > 0) merged.extensions = extensions;
    return merged;
  }

  /** The body of an initialize result for the negotiated version. */
  initializeResult(protocolVersion: string): Record<string, unknown> {
    let capabilities = this.capabilities();
    // 2025-11-25 sessions know tasks as an experimental capability of their own.
    if (this.taskService && protocolVersion >= '2025-11-25' && capabilities.tasks === undefined) {
      capabilities = { ...capabilities, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
    }
    const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo: this.info };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  /** True when `method` is served (by a registration or a low-level handler). */
  serves(method: string): boolean {
    const handler = this.handlers.get(method);
    if (!handler) return false;
    const capability = methodSpec(method)?.capability;
    return capability === undefined || this.customHandlers.has(method) || this.capabilities()[capability] !== undefined;
  }

  /** The listed descriptor of an enabled tool, including its input JSON Schema. */
  toolDescriptor(name: string): Record<string, unknown> | undefined {
    return this.toolRegistry.descriptor(name);
  }

  /** @internal The `x-mcp-header` names of an enabled tool's arguments (argument → header), for `Mcp-Param-*` checks. */
  toolParamHeaders(name: string): ReadonlyMap<string, string> | undefined {
    return this.toolRegistry.paramHeaders(name);
  }

  /**
   * The OAuth scopes a request needs, from the `requiredScopes` of the tool (`tools/call`), prompt (`prompts/get`)
   * or resource (`resources/read`) it names; undefined when it needs none. The HTTP layer checks them against
   * `req.auth.scopes` before serving the request.
   */
  requiredScopesFor(method: string, params: Record<string, unknown> | undefined): readonly string[] | undefined {
    const target = method === 'resources/read' ? params?.uri : params?.name;
    if (typeof target !== 'string') return undefined;
    switch (method) {
      case 'tools/call':
        return this.toolRegistry.requiredScopes(target);
      case 'prompts/get':
        return this.promptRegistry.requiredScopes(target);
      case 'resources/read':
        return this.resourceRegistry.hasRequiredScopes() ? this.resourceRegistry.requiredScopes(target) : undefined;
      default:
        return undefined;
    }
  }

  /**
   * Dispatches one request to its handler and returns its result (a value or a promise). Failures are `McpError`s,
   * thrown or rejected: an unknown method throws -32601 at once. The session layer calls this; so can users who
   * dispatch raw requests.
   */
  handle(method: string, params: Record<string, unknown> | undefined, ctx: RequestContext): Promise<Record<string, unknown>> | Record<string, unknown> {
    const served = (this.servedCache ??= this.buildServed());
    const handler = served.get(method);
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    return handler(params, ctx);
  }

  /** The handlers of the methods served now: rebuilt only when registrations change. */
  private buildServed(): Map<string, RequestHandler> {
    const served = new Map<string, RequestHandler>();
    for (const [method, handler] of this.handlers) if (this.serves(method)) served.set(method, handler);
    return served;
  }

  /** Delivers a client notification to its handler, if any. */
  async handleNotification(method: string, params: Record<string, unknown> | undefined, ctx: NotificationContext): Promise<void> {
    await this.notificationHandlers.get(method)?.(params, ctx);
  }

  /** @internal The middleware's `onError`, used when this server has no `onError` option of its own. */
  reportErrorsTo(onError: (error: unknown) => void): void {
    this.errorSink = onError;
  }

  /** @internal Session managers listen for list_changed and resource updates to route them to clients. */
  addEventListener(listener: ServerEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emitListChanged(method: string, kind: ServerEvent['kind']): void {
    this.capabilitiesCache = undefined;
    this.servedCache = undefined;
    this.emit({ kind, notification: { jsonrpc: '2.0', method } });
  }

  private emit(event: ServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A listener that throws must not stop the others.
        (this.options.onError ?? this.errorSink)(error);
      }
    }
  }

  private installStandardHandlers(): void {
    const standard: Record<string, RequestHandler> = {
      ping: () => EMPTY,
      'tools/list': () => ({ tools: this.toolRegistry.list() }),
      'tools/call': (params, ctx) => {
        const support = this.taskService && typeof params?.name === 'string' ? this.toolRegistry.taskSupport(params.name) : undefined;
        if (support === undefined || support === 'none') return this.toolRegistry.call(params, ctx);
        return this.taskService!.callTool(params, ctx, support, async (taskCtx) => this.toolRegistry.call(params, taskCtx));
      },
      'resources/list': async (_params, ctx) => {
        const resources = await this.resourceRegistry.list(ctx);
        for (const provider of this.resourceProviders.values()) if (provider.list) resources.push(...(await provider.list(ctx)));
        return { resources };
      },
      'resources/templates/list': () => ({ resourceTemplates: this.resourceRegistry.listTemplates() }),
      'resources/read': (params, ctx) => {
        const uri = params?.uri;
        if (typeof uri === 'string' && uri.length <= MAX_URI_LENGTH) {
          for (const [prefix, provider] of this.resourceProviders) if (uri.startsWith(prefix)) return provider.read(uri, ctx);
        }
        return this.resourceRegistry.read(params, ctx, isStatelessEraVersion(ctx.protocolVersion) ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound);
      },
      'resources/subscribe': (params, ctx) => {
        ctx.client.subscribe(requireUri(params, 'resources/subscribe'));
        return EMPTY;
      },
      'resources/unsubscribe': (params, ctx) => {
        ctx.client.unsubscribe(requireUri(params, 'resources/unsubscribe'));
        return EMPTY;
      },
      'prompts/list': () => ({ prompts: this.promptRegistry.list() }),
      'prompts/get': (params, ctx) => this.promptRegistry.get(params, ctx),
      'completion/complete': (params) => this.complete(params),
      'logging/setLevel': (params, ctx) => {
        const level = params?.level;
        if (typeof level !== 'string' || !loggingLevels.has(level)) {
          throw new McpError(ErrorCode.InvalidParams, `logging/setLevel needs params.level, one of: ${LOGGING_LEVELS.join(', ')}`);
        }
        ctx.client.setLogLevel(level as LoggingLevel);
        return EMPTY;
      },
    };
    for (const [method, handler] of Object.entries(standard)) this.handlers.set(method, handler);
  }

  private async complete(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const ref = params?.ref as { type?: string; name?: string; uri?: string } | undefined;
    const argument = params?.argument as { name?: string; value?: string } | undefined;
    if (!ref || typeof ref.type !== 'string' || !argument || typeof argument.name !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'completion/complete needs params.ref ({type, name|uri}) and params.argument ({name, value})');
    }
    let completer: CompleteCallback | undefined;
    if (ref.type === 'ref/prompt') {
      if (typeof ref.name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'ref/prompt needs a name');
      completer = this.promptRegistry.completer(ref.name, argument.name);
    } else if (ref.type === 'ref/resource') {
      if (typeof ref.uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'ref/resource needs a uri');
      completer = this.resourceRegistry.templateCompleter(ref.uri, argument.name);
    } else {
      throw new McpError(ErrorCode.InvalidParams, `Unknown completion reference type: ${ref.type}`);
    }
    if (argument.value !== undefined && typeof argument.value !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'completion/complete needs params.argument.value to be a string');
    }
    const context = params?.context as { arguments?: unknown } | undefined;
    const contextArguments = isStringRecord(context?.arguments) ? context.arguments : undefined;
    const values = completer ? await completer(argument.value ?? '', { arguments: contextArguments }) : [];
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  }
}


/** A plain object of string values (completion context arguments); anything else is dropped. */
function isStringRecord(value: unknown): value is Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const item of Object.values(value)) if (typeof item !== 'string') return false;
  return true;
}

function requireUri(params: Record<string, unknown> | undefined, method: string): string {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, `${method} needs params.uri`);
  return uri;
}
