/** What kind of node-redis client an adapter was given, told apart by the methods only that kind has. */

/** A cluster client (`createCluster()`): it has cluster-only methods a single-node client lacks. */
export function isClusterClient(client: object): boolean {
  return hasMethod(client, 'getSlotRandomNode');
}

/**
 * A client whose commands go out on one connection, in call order: `createClient()`, not a cluster, pool
 * (`createClientPool()`) or Sentinel (`createSentinel()`) client.
 */
export function isSingleConnectionClient(client: object): boolean {
  return !isClusterClient(client) && !hasMethod(client, 'execute') && !hasMethod(client, 'getMasterNode');
}

function hasMethod(client: object, name: string): boolean {
  return typeof (client as Record<string, unknown>)[name] === 'function';
}
