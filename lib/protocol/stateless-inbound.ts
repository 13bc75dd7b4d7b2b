/**
 * The inbound checks of a 2026-07-28 (stateless era) POST, as data and a pure function: the message, the version
 * header and a header lookup in, a verdict out. The HTTP layer only writes the verdict. The order of the checks is
 * the one the spec and the conformance suite pin:
 *
 * 1. a valid JSON-RPC message, and not a response (-32600);
 * 2. an `MCP-Protocol-Version` header, with valid characters, equal to `_meta`'s version (-32020);
 * 3. a version of this era (-32022, with the supported versions);
 * 4. a notification is accepted as is (202);
 * 5. the standard headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) agree with the body (-32020);
 * 6. the `_meta` envelope has its required keys (-32602).
 */
import { ErrorCode } from './error-codes.js';
import { idOf, parseMessage, type JsonRpcRequest, type RequestId } from './jsonrpc.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from './meta-keys.js';
import { describeValue } from './safe-text.js';
import { checkStandardHeaders, hasInvalidHeaderCharacters, type HeaderLookup } from './standard-headers.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel } from './types.js';
import { isStatelessEraVersion, STATELESS_ERA_VERSIONS } from './versions.js';

/** What the request's envelope says about its client. */
export interface StatelessEnvelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
}

export type StatelessInboundVerdict =
  | { ok: true; kind: 'request'; request: JsonRpcRequest; envelope: StatelessEnvelope }
  | { ok: true; kind: 'notification' }
  | { ok: false; status: number; code: number; message: string; id: RequestId | null; data?: unknown };

const loggingLevels: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/**
 * Checks a stateless-era POST body. `paramHeaders` gives, for a request, the `x-mcp-header` names of the arguments
 * its tool mirrors in `Mcp-Param-*` headers (SEP-2243).
 */
export function checkStatelessInbound(
  body: unknown,
  versionHeader: string | undefined,
  header: HeaderLookup,
  paramHeaders: (request: JsonRpcRequest) => ReadonlyMap<string, string> | undefined,
): StatelessInboundVerdict {
  const parsed = parseMessage(body);
  const id = idOf(body);
  if (typeof parsed === 'string') return refuse(400, ErrorCode.InvalidRequest, `Invalid Request: ${parsed}`, id);
  if (parsed.kind === 'response') {
    return refuse(400, ErrorCode.InvalidRequest, 'Invalid Request: clients of 2026-07-28 send no responses; answer server requests with inputResponses on a retry', id);
  }
  const message = parsed.message;
  const meta = (message.params?._meta ?? undefined) as Record<string, unknown> | undefined;
  const metaVersion = meta?.[META_PROTOCOL_VERSION];
  if (versionHeader === undefined) {
    return refuse(400, ErrorCode.HeaderMismatch, 'Header mismatch: a request with a 2026-07-28 _meta envelope needs the MCP-Protocol-Version header', id);
  }
  const ofThisEra = isStatelessEraVersion(versionHeader);
  // A version of this era has no invalid characters: the character scan is for anything else.
  if (!ofThisEra && hasInvalidHeaderCharacters(versionHeader)) {
    return refuse(400, ErrorCode.HeaderMismatch, 'Header mismatch: the MCP-Protocol-Version header has invalid characters', id);
  }
  if (metaVersion !== undefined && metaVersion !== versionHeader) {
    return refuse(
      400,
      ErrorCode.HeaderMismatch,
      `Header mismatch: MCP-Protocol-Version header (${versionHeader}) does not match _meta["${META_PROTOCOL_VERSION}"] (${describeValue(metaVersion)})`,
      id,
    );
  }
  if (!ofThisEra) {
    // Only the versions a request with this envelope can use: session-era versions are served through initialize.
    return refuse(
      400,
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${versionHeader}. Requests with a _meta envelope use ${STATELESS_ERA_VERSIONS.join(', ')}; earlier versions start with initialize.`,
      id,
      { supported: [...STATELESS_ERA_VERSIONS], requested: versionHeader },
    );
  }
  // 2026-07-28 defines no client → server notification over HTTP: accepted and ignored.
  if (parsed.kind === 'notification') return { ok: true, kind: 'notification' };

  const request = message as JsonRpcRequest;
  const headerMismatch = checkStandardHeaders(request.method, request.params, header, paramHeaders(request));
  if (headerMismatch) return refuse(400, ErrorCode.HeaderMismatch, `Header mismatch: ${headerMismatch}`, request.id);

  const missing = missingMetaKeys(meta);
  if (missing.length > 0) {
    return refuse(400, ErrorCode.InvalidParams, `Invalid params: request _meta is missing or has malformed required fields: ${missing.join(', ')}`, request.id);
  }
  const logLevel = meta![META_LOG_LEVEL];
  return {
    ok: true,
    kind: 'request',
    request,
    envelope: {
      protocolVersion: versionHeader,
      clientCapabilities: meta![META_CLIENT_CAPABILITIES] as ClientCapabilities,
      clientInfo: meta![META_CLIENT_INFO] as Implementation | undefined,
      logLevel: typeof logLevel === 'string' && loggingLevels.has(logLevel) ? (logLevel as LoggingLevel) : undefined,
    },
  };
}

function refuse(status: number, code: number, message: string, id: RequestId | null, data?: unknown): StatelessInboundVerdict {
  return data === undefined ? { ok: false, status, code, message, id } : { ok: false, status, code, message, id, data };
}

function missingMetaKeys(meta: Record<string, unknown> | undefined): string[] {
  const missing: string[] = [];
  if (typeof meta?.[META_PROTOCOL_VERSION] !== 'string') missing.push(META_PROTOCOL_VERSION);
  const capabilities = meta?.[META_CLIENT_CAPABILITIES];
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities)) missing.push(META_CLIENT_CAPABILITIES);
  const clientInfo = meta?.[META_CLIENT_INFO];
  if (clientInfo !== undefined && (!clientInfo || typeof clientInfo !== 'object')) missing.push(META_CLIENT_INFO);
  return missing;
}
