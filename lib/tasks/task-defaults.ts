/** The defaults of the task options, with the reason for each value. Each option's JSDoc repeats its default. */
export const TASK_DEFAULTS = {
  /**
   * A task-capable tool that answers within this time answers synchronously (optional support) and an MRTR
   * round it asks for is answered synchronously (any support). Short enough that a client does not notice.
   */
  syncWindowMs: 100,
  /** An hour to come back for a result. */
  ttlMs: 60 * 60_000,
  /** The longest TTL a client may ask for (2025-11-25 `task.ttl`): a day. */
  maxTtlMs: 24 * 60 * 60_000,
  /** What clients are told to poll at: fast enough for people, gentle on the store. */
  pollIntervalMs: 500,
  /** How often the instance running a handler reads the store for answers and cancellation from other instances. */
  storePollIntervalMs: 250,
  /**
   * With a message bus, answers and cancellations from other instances arrive as bus messages; the store is still
   * read this often per running task, for a message the bus lost (delivery is at most once).
   */
  busFallbackPollIntervalMs: 5_000,
  /** How long a running instance may stay silent before its tasks count as lost. */
  leaseMs: 30_000,
  inMemoryMaxTasks: 10_000,
  listPageSize: 50,
  redisKeyPrefix: 'mcp:task:',
} as const;
