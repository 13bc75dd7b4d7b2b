import type { SessionState } from './session-state.js';

/**
 * Where sessions live beyond one process. Any instance that gets a request for a session it does not hold
 * loads the state from here and restores the session under the same id.
 * Contract checked by `spec/store/session-store-contract.ts`.
 */
export interface SessionStore {
  load(sessionId: string): Promise<SessionState | undefined>;
  store(sessionId: string, state: SessionState): Promise<void>;
  delete(sessionId: string): Promise<void>;
}
