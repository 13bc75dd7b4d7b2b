/** The client capabilities that server→client requests need. */
export type ClientRequestCapability = 'elicitation' | 'sampling' | 'roots';


/**
 * Whether `value` has the shape of a client's result to `method` (the InputResponse union of 2026-07-28; the
 * same results a 2025-era client sends as JSON-RPC responses). Checked in both eras before a handler sees it.
 */
export function isClientResultFor(method: string, value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const answer = value as Record<string, unknown>;
  switch (method) {
    case 'elicitation/create':
      return (
        (answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel') &&
        (answer.content === undefined || (typeof answer.content === 'object' && answer.content !== null && !Array.isArray(answer.content)))
      );
    case 'sampling/createMessage':
      return typeof answer.role === 'string' && typeof answer.model === 'string' && typeof answer.content === 'object' && answer.content !== null;
    case 'roots/list':
      return Array.isArray(answer.roots) && answer.roots.every((root) => typeof (root as { uri?: unknown } | null)?.uri === 'string');
    default:
      return true;
  }
}
