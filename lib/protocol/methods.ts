import type { ClientRequestCapability } from './client-requests.js';
import type { ServerCapabilities } from './types.js';

/** Which protocol era may send a method: 2025-era sessions, 2026-07-28 stateless requests, or both. */
export type MethodEras = 'session' | 'stateless' | 'both';

/** Everything the layers need to know about one MCP method. Adding a method is one row in `METHODS`. */
export interface MethodSpec {
  /** Who sends the request: the client (served by `McpServer`) or the server (answered by the client). */
  direction: 'client' | 'server';
  /** Eras that have the method. A 2026-07-28 request for a session-only method gets 404 / -32601. */
  eras: MethodEras;
  /** Client → server: the server capability that must be advertised for the method to be served (-32601 without). */
  capability?: keyof ServerCapabilities;
  /** Server → client: the client capability the client must have declared to be asked. */
  clientCapability?: ClientRequestCapability;
  /** 2026-07-28 results carry `ttlMs` and `cacheScope` (SEP-2549). */
  cacheable?: boolean;
  /** 2026-07-28: the request may end in `input_required` and carries `inputResponses`/`requestState` on retry. */
  inputResponses?: boolean;
  /** 2026-07-28: the params field the `Mcp-Name` header mirrors (SEP-2243). */
  nameParam?: string;
}

/** The method table. Methods not listed (custom ones set with `setRequestHandler`) are served in both eras. */
export const METHODS: Readonly<Record<string, MethodSpec>> = {
  initialize: { direction: 'client', eras: 'session' },
  ping: { direction: 'client', eras: 'session' },
  'logging/setLevel': { direction: 'client', eras: 'session', capability: 'logging' },
  'resources/subscribe': { direction: 'client', eras: 'session', capability: 'resources' },
  'resources/unsubscribe': { direction: 'client', eras: 'session', capability: 'resources' },
  'server/discover': { direction: 'client', eras: 'stateless', cacheable: true },
  'subscriptions/listen': { direction: 'client', eras: 'stateless' },
  'tools/list': { direction: 'client', eras: 'both', capability: 'tools', cacheable: true },
  'tools/call': { direction: 'client', eras: 'both', capability: 'tools', inputResponses: true, nameParam: 'name' },
  'resources/list': { direction: 'client', eras: 'both', capability: 'resources', cacheable: true },
  'resources/templates/list': { direction: 'client', eras: 'both', capability: 'resources', cacheable: true },
  'resources/read': { direction: 'client', eras: 'both', capability: 'resources', cacheable: true, inputResponses: true, nameParam: 'uri' },
  'resources/directory/read': { direction: 'client', eras: 'both', capability: 'resources', cacheable: true },
  'prompts/list': { direction: 'client', eras: 'both', capability: 'prompts', cacheable: true },
  'prompts/get': { direction: 'client', eras: 'both', capability: 'prompts', inputResponses: true, nameParam: 'name' },
  'completion/complete': { direction: 'client', eras: 'both', capability: 'completions' },
  // Extensions: skills (SEP-2640) and tasks (SEP-2663).
  'skills/list': { direction: 'client', eras: 'both', cacheable: true },
  'skills/get': { direction: 'client', eras: 'both', cacheable: true },
  'tasks/get': { direction: 'client', eras: 'both', nameParam: 'taskId' },
  'tasks/update': { direction: 'client', eras: 'stateless', nameParam: 'taskId' },
  'tasks/cancel': { direction: 'client', eras: 'both', nameParam: 'taskId' },
  // The experimental tasks of 2025-11-25 sessions; 2026-07-28 removed them (the result is inlined in tasks/get).
  'tasks/result': { direction: 'client', eras: 'session' },
  'tasks/list': { direction: 'client', eras: 'session' },
  // Server → client requests.
  'elicitation/create': { direction: 'server', eras: 'both', clientCapability: 'elicitation' },
  'sampling/createMessage': { direction: 'server', eras: 'both', clientCapability: 'sampling' },
  'roots/list': { direction: 'server', eras: 'both', clientCapability: 'roots' },
};

/** `METHODS` as a Map: one lookup per call, and a client's method name (`__proto__`…) never reaches a prototype. */
const METHOD_ROWS: ReadonlyMap<string, MethodSpec> = new Map(Object.entries(METHODS));

/** The row of `method`, if it has one. */
export function methodSpec(method: string): MethodSpec | undefined {
  return METHOD_ROWS.get(method);
}

/** The client capability a server → client request needs, if any. */
export function clientCapabilityFor(method: string): ClientRequestCapability | undefined {
  return methodSpec(method)?.clientCapability;
}
