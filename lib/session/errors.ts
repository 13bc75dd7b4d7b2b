/**
 * The errors a session manager throws to tell the HTTP layer how to answer. A custom `SessionManager` throws these
 * too: the HTTP layer maps them to statuses and never looks at which manager threw.
 */

/** An id that is unknown, expired, deleted or owned by another principal: the HTTP layer answers 404 / -32001. */
export class SessionNotFoundError extends Error {
  constructor(sessionId: string) {
    super(`Session not found: ${sessionId}. It expired or was deleted; start a new one with initialize.`);
    this.name = 'SessionNotFoundError';
  }
}

/** No session can be created or restored right now: the HTTP layer answers 503 with `Retry-After`. */
export class SessionsUnavailableError extends Error {
  /** Seconds after which the client may try again (the `Retry-After` header). */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds = 30) {
    super(message);
    this.name = 'SessionsUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Thrown for new or restored sessions after `shutdown()`. */
export class ShuttingDownError extends SessionsUnavailableError {
  constructor() {
    super('This server is shutting down and takes no new sessions; try again later.');
    this.name = 'ShuttingDownError';
  }
}

/** Thrown when `maxSessions` are open. */
export class TooManySessionsError extends SessionsUnavailableError {
  constructor(limit: number) {
    super(`This server holds its maximum of ${limit} sessions; try again later or raise maxSessions.`);
    this.name = 'TooManySessionsError';
  }
}

/**
 * A store or the message bus did not answer (down, unreachable, past its timeout): the request could not be served
 * now, and the client may retry (503 with `Retry-After`). The store's own error went to `onError`.
 */
export class StoreUnavailableError extends SessionsUnavailableError {
  constructor(what: string) {
    super(`The ${what} is not answering right now; try again in a few seconds.`, 2);
    this.name = 'StoreUnavailableError';
  }
}
