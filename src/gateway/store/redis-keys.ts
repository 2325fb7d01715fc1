// Where the Redis store keeps what, under one namespace (default "spark"), so several services can
// share one Redis and an operator can find and clear one service's keys.

export interface RedisKeys {
  responsePrefix: string;
  response(id: string): string;
  item(itemId: string): string;
  /** Stored responses by last use, for the entry and byte caps. */
  lruIndex: string;
  /** Stored responses by expiry time. */
  expiryIndex: string;
  /** Each stored response's estimated size, and the total under "\0total". */
  sizes: string;
  slots(owner: string): string;
  leasePrefix: string;
  lease(replicaId: string): string;
  liveMeta(id: string): string;
  liveEvents(id: string): string;
}

export function redisKeys(namespace: string): RedisKeys {
  const responsePrefix = `${namespace}:response:`;
  const leasePrefix = `${namespace}:lease:`;
  return {
    responsePrefix,
    response: (id) => responsePrefix + id,
    item: (itemId) => `${namespace}:item:${itemId}`,
    lruIndex: `${namespace}:responses:lru`,
    expiryIndex: `${namespace}:responses:expiry`,
    sizes: `${namespace}:responses:bytes`,
    slots: (owner) => `${namespace}:slots:${owner}`,
    leasePrefix,
    lease: (replicaId) => leasePrefix + replicaId,
    liveMeta: (id) => `${namespace}:live:${id}`,
    liveEvents: (id) => `${namespace}:live-events:${id}`,
  };
}
