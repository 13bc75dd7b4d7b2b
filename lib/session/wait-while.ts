/** How often a drain looks again whether the work it waits for is done. */
const POLL_MS = 25;

/** Resolves once `busy()` is false or `timeoutMs` has passed, whichever comes first (the waits of a drain). */
export async function waitWhile(busy: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && busy()) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}
