// The store could not be reached (Redis down, restarting, or too slow): a 503 that says what needed
// it. Requests that need no stored state go on being served meanwhile.
import { WireError } from "../wire/wire-error.ts";

/** Retry after this long: a restarting Redis is usually back within a second or two. */
const RETRY_AFTER_MS = 1000;

export class StoreUnavailableError extends WireError {
  constructor(what: string, where: string, cause?: unknown) {
    const reason = cause instanceof Error ? ` (${cause.message})` : "";
    super(
      "store_unavailable",
      `The shared store at ${where} is unavailable${reason}, and ${what} needs it. Retry shortly; ` +
        "requests without previous_response_id or item_reference are still served.",
      { retryable: true, retryAfterMs: RETRY_AFTER_MS, cause, status: 503 },
    );
  }
}

/** Redis is at its maxmemory (noeviction): new responses are not stored until room is made (by
 * TTL, or the operator); reads and chains from what is stored go on. */
export class StoreFullError extends WireError {
  constructor(where: string) {
    super(
      "store_unavailable",
      `The shared store at ${where} is full (Redis maxmemory reached, noeviction): this response was not stored. ` +
        "Raise Redis's maxmemory, or lower [serve] response_store_max_bytes or response_store_ttl_seconds.",
      { wireCode: "store_full", retryable: true, retryAfterMs: RETRY_AFTER_MS, status: 507 },
    );
  }
}
