// Who may talk to the gateway: bearer API keys (compared in constant time), the Host a request
// names (DNS rebinding), the browser Origin allow-list, and the rule that a non-loopback bind needs keys.
import { timingSafeEqual, createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { WireError } from "../wire/wire-error.ts";

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

/**
 * The key a WebSocket handshake presents: the bearer header or, as browsers cannot set headers,
 * a `spark-key.<key>` subprotocol entry (what /v1/agent accepts, see agent-upgrade.ts). The
 * gateway counts the connection for that key; each endpoint still makes its own checks.
 */
export function authenticateUpgrade(
  headers: IncomingHttpHeaders,
  apiKeys: readonly string[],
): AuthResult {
  if (headers.authorization !== undefined) return authenticate(headers, apiKeys);
  const offered = (headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .find((entry) => entry.startsWith(KEY_SUBPROTOCOL_PREFIX));
  if (offered === undefined) return authenticate(headers, apiKeys);
  const authorization = `Bearer ${offered.slice(KEY_SUBPROTOCOL_PREFIX.length)}`;
  return authenticate({ ...headers, authorization }, apiKeys);
}

/** The subprotocol entry a browser offers its key in (`spark-key.<key>`): it cannot set headers. */
export const KEY_SUBPROTOCOL_PREFIX = "spark-key.";

function unauthorized(message: string): WireError {
  return new WireError("authentication_failed", message, { wireCode: "invalid_api_key" });
}

function sha256(text: string): Buffer {
  // Hashing first makes the comparison constant-time whatever the lengths.
  return createHash("sha256").update(text).digest();
}

export interface RequestSourceRules {
  /** The address the server is bound to. */
  host: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/**
 * Refuses a request whose Host or Origin this server does not answer to, on HTTP and on the
 * WebSocket upgrade alike. A page that rebinds its own name to 127.0.0.1 still sends its own name
 * as Host, so a loopback server answers only to loopback names and the configured ones.
 */
export function checkRequestSource(
  headers: IncomingHttpHeaders,
  rules: RequestSourceRules,
): WireError | undefined {
  if (!isHostHeaderAllowed(headers.host, rules)) {
    return new WireError(
      "permission_denied",
      `This server does not answer to Host '${headers.host ?? ""}'; connect through localhost or 127.0.0.1, or add the name to [serve] allowed_hosts.`,
      { wireCode: "host_not_allowed" },
    );
  }
  if (!isOriginAllowed(headers.origin, headers.host, rules.allowedOrigins)) {
    return new WireError(
      "permission_denied",
      `Origin ${headers.origin ?? ""} is not allowed; add it to [serve] allowed_origins.`,
      { wireCode: "origin_not_allowed" },
    );
  }
  return undefined;
}

/** Clients that send no Host (HTTP/1.0) are not browsers, so DNS rebinding cannot reach them. */
export function isHostHeaderAllowed(host: string | undefined, rules: RequestSourceRules): boolean {
  if (host === undefined) return true;
  const hostname = hostnameOf(host);
  if (hostname === undefined) return false;
  const allowed = rules.allowedHosts.map((entry) => entry.toLowerCase());
  if (allowed.includes("*") || allowed.includes(hostname) || allowed.includes(host.toLowerCase()))
    return true;
  // Bound elsewhere, with no names configured, the API keys (required there) are the guard.
  if (!isLoopbackHost(rules.host)) return allowed.length === 0;
  return isLoopbackHost(hostname);
}

function hostnameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    // A Host header is a name and a port only: anything more is not one.
    if (url.host !== host.toLowerCase() && `${url.host}:80` !== host.toLowerCase())
      return undefined;
    return url.hostname;
  } catch {
    return undefined;
  }
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
