// Who may talk to the gateway: bearer API keys (compared in constant time), the browser Origin
// allow-list for WebSockets, and the rule that a non-loopback bind needs keys.
import { timingSafeEqual, createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { WireError } from "./wire-error.ts";

export type AuthResult = { ok: true; apiKey: string | undefined } | { ok: false; error: WireError };

export function authenticate(headers: IncomingHttpHeaders, apiKeys: readonly string[]): AuthResult {
  if (apiKeys.length === 0) return { ok: true, apiKey: undefined };
  const header = headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const presented = match?.[1]?.trim();
  if (presented === undefined) {
    return {
      ok: false,
      error: unauthorized(
        "No API key: send `Authorization: Bearer <key>` with a key from [serve] api_keys.",
      ),
    };
  }
  const digest = sha256(presented);
  const key = apiKeys.find((candidate) => timingSafeEqual(sha256(candidate), digest));
  if (key === undefined)
    return { ok: false, error: unauthorized("The API key is not valid for this server.") };
  return { ok: true, apiKey: key };
}

function unauthorized(message: string): WireError {
  return new WireError("authentication_failed", message, { wireCode: "invalid_api_key" });
}

function sha256(text: string): Buffer {
  // Hashing first makes the comparison constant-time whatever the lengths.
  return createHash("sha256").update(text).digest();
}

/** Browsers send Origin; other clients do not and are judged by their key alone. */
export function isOriginAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowedOrigins: readonly string[],
): boolean {
  if (origin === undefined) return true;
  if (allowedOrigins.includes("*") || allowedOrigins.includes(origin)) return true;
  try {
    // The server's own pages (the web UI it serves) may always connect back to it.
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare.startsWith("::ffff:127.");
  return false;
}
