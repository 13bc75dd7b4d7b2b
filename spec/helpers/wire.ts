/**
 * The small building blocks every wire-level spec uses (one definition each): the Accept header of a client that
 * takes both reply forms, a timer-based pause, polling until a condition holds, and the JSON-RPC messages most
 * tests send. The other helper modules re-export these.
 */

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** Resolves after `ms` of real time (for waiting on a server that is not on a fake clock). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it holds, failing with `label` after `ms`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, label: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${label}`);
    await sleep(10);
  }
}

/** A `tools/call` request; `meta` becomes `params._meta`. */
export function toolCall(id: string | number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) {
  const params: Record<string, unknown> = { name, arguments: args };
  if (meta) params._meta = meta;
  return { jsonrpc: '2.0' as const, id, method: 'tools/call', params };
}

export const ping = (id: string | number) => ({ jsonrpc: '2.0' as const, id, method: 'ping' });
