import type { IncomingMessage } from 'node:http';

/** What Express adds to a request: the path relative to the mount point, and the mount point. */
export type MountedRequest = IncomingMessage & { path?: string; baseUrl?: string };

/**
 * True when the request is for the MCP endpoint `path` (relative to where the middleware is mounted), with or
 * without one trailing `/`. Mounted under a prefix that already ends with `path` (`app.use('/mcp', mcp)`), the
 * mount point itself is the endpoint too: `/mcp` is served there, not only `/mcp/mcp`.
 */
export function isMcpPath(req: MountedRequest, path: string): boolean {
  const relative = req.path ?? pathOf(req.url);
  if (relative === path || relative === path + '/') return true;
  const base = req.baseUrl;
  return !!base && (relative === '/' || relative === '') && (base === path || base.endsWith(path));
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
