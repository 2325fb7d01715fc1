// What makes two requests "the same request" for a retry: a hash of the request body in a
// canonical form (keys sorted), without the fields that say only how the answer is delivered
// (`stream`, `stream_options`). Scoped to a tenant by the store. The `openai` SDKs' Idempotency-Key
// is left out on purpose: it is new for each call, so a caller's own retry (a second create after
// a stream was cut) would never match.
import { createHash } from "node:crypto";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";

/** Fields a retry may change without asking for a different answer. */
const DELIVERY_FIELDS = new Set(["stream", "stream_options"]);

export function requestFingerprint(body: ResponseCreateBody): string {
  return createHash("sha256").update(canonicalJson(body, true)).digest("base64url");
}

/** JSON with object keys sorted at every depth, so field order never makes two requests differ. */
export function canonicalJson(value: unknown, topLevel = false): string {
  if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry)).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, entry]) => entry !== undefined && !(topLevel && DELIVERY_FIELDS.has(key)))
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`);
  return `{${entries.join(",")}}`;
}
