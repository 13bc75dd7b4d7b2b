import { LOOPBACK_HOSTS } from 'mcp-express';

/**
 * The `allowedHosts` of the example from `ALLOWED_HOSTS` (comma-separated `host` or `host:port` entries): the
 * loopback names plus the listed ones, since a list given to mcpMiddleware replaces its defaults.
 */
export function allowedHostsFrom(value: string | undefined): string[] {
  const listed = (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  return [...LOOPBACK_HOSTS, ...listed];
}
