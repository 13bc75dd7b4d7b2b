/**
 * Default values of the options every layer shares, in one place. Each option's JSDoc repeats its default; the
 * values themselves live only here.
 */

/** `retry:` (ms) of priming events and of connection closes: how soon a client reconnects. */
export const DEFAULT_SSE_RETRY = 3000;

/**
 * Bytes of JSON text that may wait for a slow reader on one SSE connection before the connection is ended (the
 * client resumes) or, when the stream cannot be resumed, the request is cancelled. Large enough for any normal
 * reply in flight; small enough that a client that stops reading cannot pin memory.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
