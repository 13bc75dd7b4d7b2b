import { SESSION_STORE_DEFAULTS } from '../defaults.js';
import type { SessionState } from './session-state.js';
import type { SessionStore } from './session-store.js';

export interface InMemorySessionStoreOptions {
  /** Milliseconds a stored session is kept after its last write; `0` keeps it until deleted. Defaults to `0`. */
  ttlMs?: number;
}

/**
 * Sessions in this process's memory. Shared by several `LocalSessionManager`s (one per app) it makes them
 * behave like instances of a cluster; across processes implement `SessionStore` over a shared database.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, { json: string; expiresAt: number }>();
  private readonly ttlMs: number;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? SESSION_STORE_DEFAULTS.inMemoryTtlMs;
  }

  async load(sessionId: string): Promise<SessionState | undefined> {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (entry.expiresAt !== 0 && entry.expiresAt <= Date.now()) {
      this.entries.delete(sessionId);
      return undefined;
    }
    // A copy, as a remote store would give: callers never share state objects through the store.
    return JSON.parse(entry.json) as SessionState;
  }

  async store(sessionId: string, state: SessionState): Promise<void> {
    this.entries.set(sessionId, { json: JSON.stringify(state), expiresAt: this.ttlMs > 0 ? Date.now() + this.ttlMs : 0 });
  }

  async delete(sessionId: string): Promise<void> {
    this.entries.delete(sessionId);
  }

  get size(): number {
    return this.entries.size;
  }
}
