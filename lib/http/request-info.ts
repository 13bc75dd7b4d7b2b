import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '../protocol/types.js';
import type { RequestInfo } from '../session/session-manager.js';
import type { ResolvedOptions } from './options.js';

/** What the session layer learns about an HTTP request: its auth info and who is asking. */
export function requestInfo(req: IncomingMessage & { auth?: AuthInfo }, o: ResolvedOptions): RequestInfo {
  return { authInfo: req.auth, httpRequest: req, principal: o.principalOf(req) };
}
