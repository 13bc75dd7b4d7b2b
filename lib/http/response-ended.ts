/**
 * Told once a response has ended: with no argument when it was written (or its client left), else with why writing
 * it failed. The stream writer and the stateless reply report their end this way, a callback rather than a
 * promise, so the session and 2026-07-28 calls make no promise for it (bench/in-process.js counts them).
 */
export type ResponseEnded = (error?: unknown) => void;

/** The promise form, for callers that await: fulfils when `start`'s work has ended, rejects with its failure. */
export function untilEnded(start: (ended: ResponseEnded) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    start((error) => (error === undefined ? resolve() : reject(error)));
  });
}
