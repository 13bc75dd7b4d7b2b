/** MCP data types used by the server API (a subset of the schema that servers produce). */

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Array<{ src: string; mimeType?: string; sizes?: string[] }>;
}

export type Role = 'user' | 'assistant';

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: Record<string, unknown> }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }

export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> }
export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: Record<string, unknown> }
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Syslog severities, lowest first: a message goes out when its level is at least the session's level. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export function loggingSeverity(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: Record<string, never>;
  logging?: Record<string, never>;
  experimental?: Record<string, unknown>;
  /** Extensions the server supports (SEP-2133), each with its settings object, e.g. `{ "io.modelcontextprotocol/skills": {} }`. */
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Authentication info an app's auth middleware put on `req.auth` (same shape as the official SDK's `AuthInfo`). */
export interface AuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  extra?: Record<string, unknown>;
}

export interface CreateMessageParams {
  messages: Array<{ role: Role; content: ContentBlock | ContentBlock[] }>;
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CreateMessageResult {
  role: Role;
  content: ContentBlock;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface ElicitParams {
  /** `form` (default) asks for structured data; `url` sends the user to a page (2025-11-25). */
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  elicitationId?: string;
  [key: string]: unknown;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Root { uri: string; name?: string }
export interface ListRootsResult { roots: Root[]; [key: string]: unknown }
