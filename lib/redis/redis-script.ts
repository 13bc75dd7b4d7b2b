import { createHash } from 'node:crypto';

/** What running a script needs of a node-redis client (`createClient()` or `createCluster()`). */
export interface RedisScriptClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** With it, the script's text is sent once per Redis (after a `NOSCRIPT`), then only its SHA1. */
  evalSha?(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * A Lua script the adapters run by its SHA1 (`EVALSHA`), falling back to `EVAL` (which also caches it in Redis) when
 * Redis does not know it yet (`NOSCRIPT`: first use, a restart, a failover, `SCRIPT FLUSH`). Every key a script
 * touches is in `keys`, in one hash slot, so it runs on a Redis Cluster too.
 */
export class RedisScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisScriptClient, keys: string[], args: string[]): Promise<unknown> {
    const options = { keys, arguments: args };
    if (typeof client.evalSha !== 'function') return client.eval(this.source, options);
    try {
      return await client.evalSha(this.sha1, options);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.eval(this.source, options);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
