import type { SessionState } from './session-state.js';

/**
 * Where sessions live beyond one process. Any instance that gets a request for a session it does not hold
 * loads the state from here and restores the session under the same id.
 * Contract checked by `describeSessionStoreContract` from `mcp-express/testing`.
 */
export interface SessionStore {
  load(sessionId: string): Promise<SessionState | undefined>;
  store(sessionId: string, state: SessionState): Promise<void>;
  delete(sessionId: string): Promise<void>;
}
