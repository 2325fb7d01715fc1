// The path a request (HTTP or WebSocket upgrade) asks for, read from its raw target without
// throwing: `new URL("//", base)` throws, and a throw in a request listener would end the server.
import { WireError } from "../wire/wire-error.ts";

/** The target's path (percent-encoding kept), or undefined when the target is not a path. */
export function requestPathOf(target: string | undefined): string | undefined {
  const raw = target ?? "/";
  try {
    // Origin-form ("/v1/models?x"): appended to a fixed origin, so "//host/x" stays a path and
    // never becomes a host.
    if (raw.startsWith("/")) return new URL(`http://localhost${raw}`).pathname;
    // Absolute-form ("http://host/path"), which proxies send; anything else ("*") is no path.
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url.pathname : undefined;
  } catch {
    return undefined;
  }
}

export function invalidTargetError(target: string | undefined): WireError {
  return new WireError(
    "invalid_request",
    `The request target '${(target ?? "").slice(0, 64)}' is not a path; ask for one such as /v1/models.`,
    { wireCode: "invalid_request_target" },
  );
}
