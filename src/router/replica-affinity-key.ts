// Which key keeps a conversation on one replica of a pool: the client's session key; else the
// conversation's start (everything up to and including its first user message, within its cache
// scope), so every turn of a `previous_response_id` chain, its first included, and a client that
// resends the whole conversation each turn reach the replica whose prompt cache holds it; else
// the gateway's affinity key; else none, and the pool rotates.
import { createHash } from "node:crypto";
import { cacheAffinityKey } from "../engines/cache-affinity-key.ts";
import type { EngineRequest } from "../engines/engine.ts";

export function replicaAffinityKey(request: EngineRequest): string | undefined {
  if (request.sessionKey !== undefined) return request.sessionKey;
  const firstUser = request.messages.findIndex((message) => message.role === "user");
  if (firstUser === -1) return cacheAffinityKey(request);
  const hash = createHash("sha256").update(request.cacheScope ?? "");
  for (const message of request.messages.slice(0, firstUser + 1)) {
    hash.update(`\u0000${message.role}\u0000${message.content}`);
  }
  return `start:${hash.digest("base64url")}`;
}
