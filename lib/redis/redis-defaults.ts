/** The defaults of the Redis adapters' own options, with the reason for each value. Each option's JSDoc repeats it. */
export const REDIS_DEFAULTS = {
  /**
   * How long an adapter waits for Redis before it rejects. A healthy Redis answers in well under a millisecond;
   * two seconds rides out a slow moment or a failover's first reconnect, and is short enough that a request
   * fails fast (a 503) instead of hanging while Redis is down.
   */
  commandTimeoutMs: 2000,
  /** Beside the stores' `mcp:events:`, `mcp:session:` and `mcp:task:` prefixes. */
  busChannelPrefix: 'mcp:bus:',
} as const;
