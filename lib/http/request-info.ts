import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '../protocol/types.js';
import type { RequestInfo } from '../session/session-manager.js';
import type { ResolvedOptions } from './options.js';

/** What the session layer learns about an HTTP request: its auth info and who is asking. */
export function requestInfo(req: IncomingMessage & { auth?: AuthInfo }, o: ResolvedOptions): RequestInfo {
  return new HttpRequestInfo(req.auth, req, o.principalOf(req));
}

/**
 * A class, not an object literal: V8 may allocate a literal's objects in the old generation once they often
 * outlive a scavenge, and this one points at the whole request (docs/benchmarks.md, "allocation sites").
 */
class HttpRequestInfo implements RequestInfo {
  constructor(
    readonly authInfo: AuthInfo | undefined,
    readonly httpRequest: IncomingMessage,
    readonly principal: string | undefined,
  ) {}
}
