import { describe, expect, it } from "vitest";
import { checkAgentUpgrade, isAgentOriginAllowed } from "./agent-upgrade.ts";

const none = { allowedOrigins: [] as string[] };

describe("isAgentOriginAllowed", () => {
  it("allows the server's own origin only on a loopback host", () => {
    expect(isAgentOriginAllowed("http://127.0.0.1:7777", "127.0.0.1:7777", none)).toBe(true);
    expect(isAgentOriginAllowed("http://localhost:7777", "localhost:7777", none)).toBe(true);
    expect(isAgentOriginAllowed("http://[::1]:7777", "[::1]:7777", none)).toBe(true);
    // DNS rebinding: the attacker's name resolves to 127.0.0.1, and Host matches the Origin.
    expect(isAgentOriginAllowed("http://rebind.example:7777", "rebind.example:7777", none)).toBe(
      false,
    );
  });

  it("needs the same host and port, and an http(s) scheme", () => {
    expect(isAgentOriginAllowed("http://127.0.0.1:8080", "127.0.0.1:7777", none)).toBe(false);
    expect(isAgentOriginAllowed("http://localhost:7777", "127.0.0.1:7777", none)).toBe(false);
    expect(isAgentOriginAllowed("file://127.0.0.1:7777", "127.0.0.1:7777", none)).toBe(false);
    expect(isAgentOriginAllowed("null", "127.0.0.1:7777", none)).toBe(false);
    expect(isAgentOriginAllowed("http://127.0.0.1:7777", undefined, none)).toBe(false);
  });

  it("allows a configured host's own origin and listed origins, but not a wildcard", () => {
    const options = { allowedOrigins: ["https://app.example", "*"], allowedHosts: ["box.lan"] };
    expect(isAgentOriginAllowed("http://box.lan:7777", "box.lan:7777", options)).toBe(true);
    expect(isAgentOriginAllowed("https://app.example", "127.0.0.1:7777", options)).toBe(true);
    expect(isAgentOriginAllowed("https://other.example", "127.0.0.1:7777", options)).toBe(false);
  });
});

describe("checkAgentUpgrade", () => {
  const options = { apiKeys: ["k1"], allowedOrigins: [] };

  it("accepts a bearer key or a spark-key subprotocol entry, without an Origin", () => {
    expect(checkAgentUpgrade({ authorization: "Bearer k1" }, options)).toBeUndefined();
    expect(
      checkAgentUpgrade({ "sec-websocket-protocol": "spark-agent, spark-key.k1" }, options),
    ).toBeUndefined();
  });

  it("refuses a missing key (401) and a foreign origin before the key (403)", () => {
    expect(checkAgentUpgrade({}, options)).toMatchObject({ status: 401, code: "invalid_api_key" });
    expect(
      checkAgentUpgrade(
        { authorization: "Bearer k1", origin: "https://evil.example", host: "127.0.0.1:1" },
        options,
      ),
    ).toMatchObject({ status: 403, code: "origin_not_allowed" });
  });
});
