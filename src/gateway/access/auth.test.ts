// The Host rule against DNS rebinding: loopback names on a loopback bind, plus configured ones.
import { describe, expect, it } from "vitest";
import { isHostHeaderAllowed } from "./auth.ts";

const loopback = { host: "127.0.0.1", allowedHosts: [], allowedOrigins: [] };

describe("isHostHeaderAllowed", () => {
  it("accepts loopback names with any port on a loopback bind", () => {
    for (const host of ["localhost", "localhost:7777", "127.0.0.1:1", "[::1]:7777", "LOCALHOST"])
      expect(isHostHeaderAllowed(host, loopback), host).toBe(true);
  });

  it("refuses other names, and anything that is not a plain host[:port]", () => {
    for (const host of [
      "attacker.example",
      "attacker.example:7777",
      "localhost.attacker.example",
      "user@localhost",
      "127.0.0.1/x",
      "",
    ])
      expect(isHostHeaderAllowed(host, loopback), host).toBe(false);
  });

  it("adds allowed_hosts by name or name:port", () => {
    const rules = { ...loopback, allowedHosts: ["spark.internal", "box.lan:9000"] };
    expect(isHostHeaderAllowed("spark.internal:7777", rules)).toBe(true);
    expect(isHostHeaderAllowed("box.lan:9000", rules)).toBe(true);
    expect(isHostHeaderAllowed("box.lan:9001", rules)).toBe(false);
  });

  it("on a public bind, checks Host only when allowed_hosts is set", () => {
    const open = { host: "0.0.0.0", allowedHosts: [], allowedOrigins: [] };
    expect(isHostHeaderAllowed("anything.example", open)).toBe(true);
    const named = { ...open, allowedHosts: ["spark.example"] };
    expect(isHostHeaderAllowed("spark.example", named)).toBe(true);
    expect(isHostHeaderAllowed("anything.example", named)).toBe(false);
  });
});
