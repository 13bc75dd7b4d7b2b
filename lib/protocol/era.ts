import { META_PROTOCOL_VERSION } from './meta-keys.js';
import { LATEST_SESSION_ERA_VERSION } from './versions.js';

export type Era = 'session' | 'stateless';

/**
 * Which protocol era a POST belongs to (spec `basic/versioning`; the reference server's discriminator):
 * session era if it carries `Mcp-Session-Id`, or has no `_meta` protocol version and either no version header
 * or a header naming a session-era (or older) version. Everything else is the stateless (2026-07-28) era, so an
 * `initialize` with a modern envelope is classified by its envelope, not by its method.
 */
export function classifyEra(body: unknown, versionHeader: string | undefined, sessionId: string | undefined): Era {
  if (sessionId !== undefined) return 'session';
  if (metaProtocolVersion(body) !== undefined) return 'stateless';
  // Dates compare as strings: an unknown older date stays in the session era (and gets its 400 there).
  if (versionHeader === undefined || versionHeader <= LATEST_SESSION_ERA_VERSION) return 'session';
  return 'stateless';
}

/** `params._meta["io.modelcontextprotocol/protocolVersion"]` of a request or notification body, if any. */
export function metaProtocolVersion(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  if (!params || typeof params !== 'object') return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  return (meta as Record<string, unknown>)[META_PROTOCOL_VERSION];
}
