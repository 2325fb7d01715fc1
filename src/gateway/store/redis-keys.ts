// Where the Redis store keeps what, under one namespace (default "spark"), so several services can
// share one Redis and an operator can find and clear one service's keys.

export interface RedisKeys {
  responsePrefix: string;
  response(id: string): string;
  item(itemId: string): string;
  /** The item keys a stored response holds, deleted with it. */
  itemsOf(id: string): string;
  itemsPrefix: string;
  /** A tenant's stored responses in the order they were stored, for its entry and byte caps. */
  lruIndex(owner: string): string;
  /** A tenant's stored responses by expiry time. */
  expiryIndex(owner: string): string;
  /** Each of a tenant's stored responses' estimated size, and the total under "\0total". */
  sizes(owner: string): string;
  slots(owner: string): string;
  leasePrefix: string;
  lease(replicaId: string): string;
  liveMeta(id: string): string;
  liveEvents(id: string): string;
  /** A tenant's request fingerprint → the response it started (a retry finds it). */
  request(owner: string, fingerprint: string): string;
}

export function redisKeys(namespace: string): RedisKeys {
  const responsePrefix = `${namespace}:response:`;
  const leasePrefix = `${namespace}:lease:`;
  return {
    responsePrefix,
    response: (id) => responsePrefix + id,
    item: (itemId) => `${namespace}:item:${itemId}`,
    itemsPrefix: `${namespace}:response-items:`,
    itemsOf: (id) => `${namespace}:response-items:${id}`,
    // Per tenant: one key's responses never evict another's.
    lruIndex: (owner) => `${namespace}:responses:lru:${owner}`,
    expiryIndex: (owner) => `${namespace}:responses:expiry:${owner}`,
    sizes: (owner) => `${namespace}:responses:bytes:${owner}`,
    slots: (owner) => `${namespace}:slots:${owner}`,
    leasePrefix,
    lease: (replicaId) => leasePrefix + replicaId,
    liveMeta: (id) => `${namespace}:live:${id}`,
    liveEvents: (id) => `${namespace}:live-events:${id}`,
    request: (owner, fingerprint) => `${namespace}:request:${owner}:${fingerprint}`,
  };
}
