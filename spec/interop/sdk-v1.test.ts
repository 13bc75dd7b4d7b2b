/**
 * Interop with the official TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x) over real HTTP on 127.0.0.1:
 * every shared scenario (scenarios.ts) through the client's own API, against our middleware.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { recordingFetch, type Exchange } from './fixture.js';
import { describeInteropScenarios, type ClientAdapter, type InteropClient, type InteropConnection } from './scenarios.js';

/**
 * The v1 client always proposes its LATEST_PROTOCOL_VERSION in `initialize`. To make it propose an older revision
 * we rewrite only that one field of the request it builds; everything else (headers, negotiation, the
 * MCP-Protocol-Version header it then sends) is the client's own behaviour.
 */
class ProposingClient extends Client {
  constructor(
    private readonly proposedVersion: string,
    ...args: ConstructorParameters<typeof Client>
  ) {
    super(...args);
  }

  override request(...args: Parameters<Client['request']>): ReturnType<Client['request']> {
    const [request, ...rest] = args;
    if (request.method === 'initialize') {
      args = [{ ...request, params: { ...request.params, protocolVersion: this.proposedVersion } }, ...rest] as typeof args;
    }
    return super.request(...args);
  }
}

const NOTIFICATION_SCHEMAS = {
  'notifications/message': LoggingMessageNotificationSchema,
  'notifications/tools/list_changed': ToolListChangedNotificationSchema,
  'notifications/resources/updated': ResourceUpdatedNotificationSchema,
};
const REQUEST_SCHEMAS = {
  'elicitation/create': ElicitRequestSchema,
  'sampling/createMessage': CreateMessageRequestSchema,
  'roots/list': ListRootsRequestSchema,
};

/** The v1 client seen in the v2 shape: per-call options second, handlers keyed by method name instead of schema. */
function inV2Shape(client: Client): InteropClient {
  const overrides: Record<string, unknown> = {
    callTool: (params: Parameters<Client['callTool']>[0], options?: Parameters<Client['callTool']>[2]) => client.callTool(params, undefined, options),
    setNotificationHandler: (method: keyof typeof NOTIFICATION_SCHEMAS, handler: (notification: any) => void) =>
      client.setNotificationHandler(NOTIFICATION_SCHEMAS[method] as typeof LoggingMessageNotificationSchema, handler),
    setRequestHandler: (method: keyof typeof REQUEST_SCHEMAS, handler: (request: any) => any) =>
      client.setRequestHandler(REQUEST_SCHEMAS[method] as typeof ElicitRequestSchema, handler),
  };
  return new Proxy(client, {
    get(target, key, receiver) {
      if (typeof key === 'string' && key in overrides) return overrides[key];
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as InteropClient;
}

interface V1Connection extends InteropConnection {
  transport: StreamableHTTPClientTransport;
}

const v1: ClientAdapter<V1Connection> = {
  name: 'sdk v1 client',
  versionChoice: 'proposing',
  async connect(fixture, { capabilities = {}, version }) {
    const info = { name: 'interop-v1', version: '0.0.1' };
    const client = version ? new ProposingClient(version, info, { capabilities }) : new Client(info, { capabilities });
    const exchanges: Exchange[] = [];
    const transport = new StreamableHTTPClientTransport(fixture.url, { fetch: recordingFetch(exchanges) });
    await client.connect(transport);
    return { client: inV2Shape(client), transport, exchanges };
  },
  negotiatedVersion: ({ transport }) => transport.protocolVersion,
  ProtocolError: McpError,
};

describeInteropScenarios(v1);
