/** Protocol revisions served with `initialize` and `Mcp-Session-Id` (the 2025 era), oldest first. */
export const SESSION_ERA_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** The newest session-era revision: the answer to an `initialize` that asks for a version we do not speak. */
export const LATEST_SESSION_ERA_VERSION = '2025-11-25';

/** The revision assumed when a session-era request carries no `MCP-Protocol-Version` header (spec: basic/transports). */
export const DEFAULT_NEGOTIATED_VERSION = '2025-03-26';

/** The only revision whose clients may send JSON-RPC batches (2025-06-18 removed them). */
export const BATCH_VERSION = '2025-03-26';

/** First revision whose clients understand SSE priming events (empty `data`, SEP-1699). */
export const PRIMING_MIN_VERSION = '2025-11-25';

export type SessionEraVersion = (typeof SESSION_ERA_VERSIONS)[number];

const sessionEraSet: ReadonlySet<string> = new Set(SESSION_ERA_VERSIONS);

export function isSessionEraVersion(version: string): version is SessionEraVersion {
  return sessionEraSet.has(version);
}

/** Echo a supported requested version, else answer the latest one we speak (not an error, per the spec). */
export function negotiateVersion(requested: unknown): SessionEraVersion {
  return typeof requested === 'string' && sessionEraSet.has(requested)
    ? (requested as SessionEraVersion)
    : LATEST_SESSION_ERA_VERSION;
}


/** Stateless revisions: every request carries its own `_meta` envelope; no initialize, no sessions. */
export const STATELESS_ERA_VERSIONS = ['2026-07-28'] as const;

/** Every version this server speaks, newest first (as `server/discover` lists them). */
export const SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_ERA_VERSIONS, ...SESSION_ERA_VERSIONS].sort().reverse();

const statelessEraSet: ReadonlySet<string> = new Set(STATELESS_ERA_VERSIONS);

export function isStatelessEraVersion(version: string): boolean {
  return statelessEraSet.has(version);
}
