// Tenants: every API key is its own tenant (no keys configured: one anonymous tenant). Engine
// cache keys are namespaced by tenant, so one key can never hit, or probe, another key's cache.
import { createHash } from "node:crypto";

const ANONYMOUS_TENANT = "anonymous";

/** A stable, non-secret name for the caller's tenant: a hash of its key, never the key. */
export function tenantOf(apiKey: string | undefined): string {
  if (apiKey === undefined) return ANONYMOUS_TENANT;
  return `key-${createHash("sha256").update(apiKey).digest("hex").slice(0, 24)}`;
}

/**
 * The engine key for a client-chosen cache key (prompt_cache_key: sessionKey) or a chain's first
 * response id (affinityKey).
 * Takes the tenant already named, so a request hashes its key once for both uses.
 */
export function tenantSessionKey(tenant: string, cacheKey: string): string {
  return `${tenant}/${cacheKey}`;
}
