import type { IncomingMessage, ServerResponse } from 'node:http';

/** The well-known path of OAuth 2.0 protected resource metadata (RFC 9728 §3). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Options of `protectedResourceMetadataRouter`. `resourceServerUrl` and `authorizationServers` are required. */
export interface ProtectedResourceMetadataOptions {
  /** The URL clients use for the MCP endpoint, e.g. `https://api.example.com/mcp`: the `resource` of the metadata. */
  resourceServerUrl: URL | string;
  /** Issuer URLs of the authorization servers whose tokens this server accepts (at least one). */
  authorizationServers: Array<URL | string>;
  /** Scopes this server understands; clients request them when no challenge names any. Defaults to none listed. */
  scopesSupported?: string[];
  /** Human-readable name of this server. Defaults to none. */
  resourceName?: string;
  /** URL of documentation for developers using this server (`resource_documentation`). Defaults to none. */
  serviceDocumentationUrl?: URL | string;
  /** How clients may send tokens. Defaults to `['header']` (MCP allows only the Authorization header). */
  bearerMethodsSupported?: string[];
  /** More metadata fields (RFC 9728 §2), merged into the document. Defaults to none. */
  extraMetadata?: Record<string, unknown>;
}

type NextFunction = (error?: unknown) => void;

function absoluteUrl(option: string, value: URL | string): URL {
  if (!URL.canParse(String(value))) throw new TypeError(`${option} must hold absolute URLs such as 'https://api.example.com/mcp' (got ${JSON.stringify(String(value))}).`);
  return new URL(String(value));
}

/**
 * The URL of the protected resource metadata of an MCP endpoint, in the path-suffixed form of RFC 9728 §3.1
 * (the official SDK's helper of the same name):
 * `getOAuthProtectedResourceMetadataUrl('https://api.example.com/mcp')` →
 * `'https://api.example.com/.well-known/oauth-protected-resource/mcp'`.
 */
export function getOAuthProtectedResourceMetadataUrl(serverUrl: URL | string): string {
  const url = new URL(String(serverUrl));
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return new URL(PROTECTED_RESOURCE_METADATA_PATH + path, url.origin).href;
}

/**
 * Express middleware serving this server's OAuth 2.0 protected resource metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource` and at its form suffixed with the MCP path
 * (`/.well-known/oauth-protected-resource/mcp`), the two URLs MCP clients probe. Mount it at the root of the app,
 * before any auth middleware: the metadata is public (any origin may read it). Other paths go to `next()`.
 */
export function protectedResourceMetadataRouter(options: ProtectedResourceMetadataOptions): (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void {
  if (!options || options.resourceServerUrl === undefined) {
    throw new TypeError("protectedResourceMetadataRouter needs resourceServerUrl, the URL of the MCP endpoint (e.g. 'https://api.example.com/mcp').");
  }
  if (!Array.isArray(options.authorizationServers) || options.authorizationServers.length === 0) {
    throw new TypeError('protectedResourceMetadataRouter needs authorizationServers: the issuer URL of at least one authorization server whose tokens this server accepts.');
  }
  const resource = absoluteUrl('resourceServerUrl', options.resourceServerUrl);
  if (resource.hash) throw new TypeError(`resourceServerUrl must not have a fragment (got ${resource.href}).`);
  const metadata: Record<string, unknown> = {
    resource: resource.href,
    // Issuer identifiers are compared as strings with the authorization server's metadata (RFC 8414 §3.3): kept as given.
    authorization_servers: options.authorizationServers.map((issuer) => absoluteUrl('authorizationServers', issuer) && String(issuer)),
    bearer_methods_supported: options.bearerMethodsSupported ?? ['header'],
  };
  if (options.scopesSupported !== undefined) metadata.scopes_supported = options.scopesSupported;
  if (options.resourceName !== undefined) metadata.resource_name = options.resourceName;
  if (options.serviceDocumentationUrl !== undefined) metadata.resource_documentation = absoluteUrl('serviceDocumentationUrl', options.serviceDocumentationUrl).href;
  Object.assign(metadata, options.extraMetadata);
  const body = JSON.stringify(metadata);
  const suffix = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  const paths = new Set([PROTECTED_RESOURCE_METADATA_PATH, PROTECTED_RESOURCE_METADATA_PATH + suffix]);

  return function protectedResourceMetadata(req: IncomingMessage & { path?: string }, res: ServerResponse, next: NextFunction): void {
    const path = req.path ?? (req.url ?? '/').split('?', 1)[0];
    if (!paths.has(path) && !paths.has(path.replace(/\/$/, ''))) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'public, max-age=3600' });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      case 'OPTIONS':
        res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS', 'Access-Control-Allow-Headers': '*', 'Access-Control-Max-Age': '86400' });
        res.end();
        return;
      default: {
        const text = JSON.stringify({ error: 'method_not_allowed', error_description: `${req.method} is not allowed on protected resource metadata; use GET` });
        res.writeHead(405, { Allow: 'GET, HEAD, OPTIONS', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      }
    }
  };
}
