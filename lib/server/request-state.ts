import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';

/** What travels inside `requestState` between rounds of a multi-round-trip request. */
export interface RequestStatePayload {
  /** The method and target (tool or prompt name) the state was minted for; a state is useless elsewhere. */
  method: string;
  name: string | undefined;
  /** A hash of who made the request (the middleware's `principalOf`), so another caller cannot replay the state. */
  principal: string;
  /** Hash of the request's own params (arguments, uri…), so the state cannot be reused with other arguments. */
  paramsHash: string;
  /** Answers of earlier rounds, by inputRequests key, so that every round replays the handler with all of them. */
  answers: Record<string, unknown>;
  /** The handler's own state, set with `ctx.inputRequired(…, state)`. */
  state?: unknown;
  /** Epoch ms after which the state is refused. */
  expires: number;
}

/**
 * Seals `requestState` with HMAC-SHA256 so a client can carry it but not forge or alter it. The secret is
 * random per process unless configured; instances of one cluster must share it.
 */
export class RequestStateCodec {
  private readonly secret: Buffer;

  constructor(
    secret: string | Buffer | undefined,
    private readonly ttlMs: number,
  ) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    if (this.secret.length < 16) throw new TypeError('requestStateSecret must be at least 16 bytes long.');
  }

  seal(payload: Omit<RequestStatePayload, 'expires'>): string {
    const body = Buffer.from(JSON.stringify({ ...payload, expires: Date.now() + this.ttlMs })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The payload, or undefined when the token was altered, forged, expired or is not ours. */
  open(token: unknown): RequestStatePayload | undefined {
    // Only the exact text seal() makes: unpadded base64url, a 43-character signature. Buffer.from would also take
    // padding, the +/ alphabet and stray characters, so one state would have many accepted spellings.
    if (typeof token !== 'string' || token.length > 1_000_000 || !SEALED_TOKEN.test(token)) return undefined;
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    if (!isCanonicalBase64Url(body)) return undefined;
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as RequestStatePayload;
      return payload.expires >= Date.now() ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** `<base64url body>.<base64url HMAC-SHA256>`, unpadded. */
const SEALED_TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** True when decoding and encoding again gives the same text (no stray trailing bits). */
function isCanonicalBase64Url(text: string): boolean {
  return text.length % 4 !== 1 && Buffer.from(text, 'base64url').toString('base64url') === text;
}

/** Params that are not part of what a retry asks for: the envelope and the multi-round-trip fields. */
const ROUND_FIELDS: ReadonlySet<string> = new Set(['_meta', 'inputResponses', 'requestState']);

/** A hash of a request's params without the fields that change between rounds, key order ignored. */
export function hashRequestParams(params: Record<string, unknown> | undefined): string {
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params ?? {})) if (!ROUND_FIELDS.has(key)) own[key] = value;
  return createHash('sha256').update(canonicalJson(own)).digest('base64url');
}

/** Arguments nested deeper than this are refused (-32602): no real tool needs them, and recursion must stay bounded. */
const MAX_PARAMS_DEPTH = 64;

function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_PARAMS_DEPTH) throw new McpError(ErrorCode.InvalidParams, `Invalid params: nested more than ${MAX_PARAMS_DEPTH} levels deep`);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key], depth + 1)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A short hash of the principal (`-` for anonymous): the state is readable by the client, so it names no one. */
export function principalTag(principal: string | undefined): string {
  return principal === undefined ? '-' : createHash('sha256').update(principal).digest('hex').slice(0, 16);
}
