/** Public API of mcp-express. Everything not exported here is internal. */
export { mcpMiddleware } from './mcp-middleware.js';
export type { McpRequestHandler, CloseOptions } from './http/mcp-middleware.js';
export type { McpMiddlewareOptions } from './http/options.js';
export type { McpEvent, ServingEra, RequestStartEvent, RequestEndEvent, SessionLifecycleEvent, StreamResumedEvent, RequestRefusedEvent } from './observability/events.js';
export type { McpCorsOptions } from './http/cors.js';
export { LOOPBACK_HOSTS } from './defaults.js';

export { McpServer, type McpServerOptions, type RequestHandler, type NotificationHandler, type NotificationContext } from './server/mcp-server.js';
export { RequestContext } from './server/request-context.js';
export type { ToolConfig, ToolHandler, ToolResult, RegisteredTool, InferArgs } from './server/tool-registry.js';
export type { ZodObjectInput } from './server/zod-json-schema.js';
export type {
  ResourceMetadata,
  ResourceTemplateConfig,
  ListedResource,
  RegisteredResource,
  ReadResourceCallback,
  ReadTemplateCallback,
  TemplateVariables,
  TemplateVariableNames,
  CompleteCallback,
} from './server/resource-registry.js';
export type { PromptConfig, PromptHandler, RegisteredPrompt, PromptArgsShape } from './server/prompt-registry.js';
export type { OutgoingRequestOptions } from './server/request-channel.js';
export { UriTemplate } from './server/uri-template.js';
export type { ResourceProvider } from './server/mcp-server.js';
export {
  SkillsExtension,
  SkillsLoadError,
  type SkillsExtensionOptions,
  type DynamicSkillConfig,
  type SkillFileContent,
  type RegisteredSkill,
} from './skills/skills-extension.js';
export type { SkillEntry, SkillResourceEntry } from './skills/skill-catalog.js';
export type { SkillFrontmatter } from './skills/front-matter.js';
export { SKILLS_EXTENSION_ID } from './skills/skill-constants.js';
export { TASKS_EXTENSION_ID, type TaskSupport } from './tasks/task-constants.js';
export type { TaskOptions } from './tasks/task-options.js';
export type { TaskStore, TaskRecord, TaskStatus, TaskOutcome, TaskError } from './tasks/task-store.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './tasks/in-memory-task-store.js';
export { PollingTaskSignals, type TaskSignals } from './tasks/task-signals.js';

export { McpError } from './protocol/mcp-error.js';
export { ErrorCode } from './protocol/error-codes.js';
export { SESSION_ERA_VERSIONS, LATEST_SESSION_ERA_VERSION, STATELESS_ERA_VERSIONS, SUPPORTED_VERSIONS } from './protocol/versions.js';
export type { InputRequest } from './server/input-required.js';
export type {
  Implementation,
  Role,
  Annotations,
  TextContent,
  ImageContent,
  AudioContent,
  TextResourceContents,
  BlobResourceContents,
  ResourceContents,
  EmbeddedResource,
  ResourceLink,
  ContentBlock,
  CallToolResult,
  ReadResourceResult,
  PromptMessage,
  GetPromptResult,
  ToolAnnotations,
  LoggingLevel,
  ClientCapabilities,
  ServerCapabilities,
  AuthInfo,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
  ListRootsResult,
} from './protocol/types.js';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, JsonRpcResultResponse, JsonRpcErrorResponse, JsonRpcErrorObject, RequestId } from './protocol/jsonrpc.js';

export { LocalSessionManager, type LocalSessionManagerOptions } from './session/local-session-manager.js';
export { NeverSessionManager, type NeverSessionManagerOptions } from './session/never-session-manager.js';
export { SessionNotFoundError, SessionsUnavailableError, ShuttingDownError, StoreUnavailableError, TooManySessionsError } from './session/errors.js';
export type { SessionManager, RequestInfo, TransportSettings, PersistedReplies, PersistedReply } from './session/session-manager.js';
export type { ServerEvents } from './session/server-event-relay.js';
export type { ServerEvent } from './server/mcp-server.js';
export type { SseChannel } from './session/sse-channel.js';
export type { SessionState } from './store/session-state.js';
export type { SseEvent, SseStream } from './store/sse-event.js';

export type { EventStore, StoredEvent } from './store/event-store.js';
export type { SessionStore } from './store/session-store.js';
export { InMemorySessionStore, type InMemorySessionStoreOptions } from './store/in-memory-session-store.js';
export { InMemoryEventStore, type InMemoryEventStoreOptions } from './store/in-memory-event-store.js';
export type { MessageBus } from './store/message-bus.js';
export { InMemoryMessageBus } from './store/in-memory-message-bus.js';
export type { StreamLeases, StreamLeaseInfo } from './store/stream-leases.js';
export { InMemoryStreamLeases, type InMemoryStreamLeasesOptions } from './store/in-memory-stream-leases.js';

import './auth/express-request.js'; // types only: Express's Request gets req.auth
export { requireBearerAuth, type BearerAuthOptions, type OAuthTokenVerifier } from './auth/bearer-auth.js';
export { InvalidTokenError, InsufficientScopeError } from './auth/errors.js';
export {
  protectedResourceMetadataRouter,
  getOAuthProtectedResourceMetadataUrl,
  type ProtectedResourceMetadataOptions,
} from './auth/resource-metadata.js';
