// Which key keeps a conversation's turns together in Spark's own pools (the embedded engine's
// sequences, an upstream's WebSockets, a pool's replicas): the client's sessionKey, else the
// gateway's affinityKey for a response chain; undefined for a request that stands alone, which
// the embedded engine still matches by prefix.
import type { EngineRequest } from "./engine.ts";

export function cacheAffinityKey(request: EngineRequest): string | undefined {
  return request.sessionKey ?? request.affinityKey;
}
