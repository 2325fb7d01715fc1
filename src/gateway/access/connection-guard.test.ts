// The guard's bookkeeping on stand-in sockets: which pending socket makes room, how admitted ones
// count per key and in total, and how addresses are grouped.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { addressBucketOf, ConnectionGuard } from "./connection-guard.ts";

function guardWith(limits: Partial<ConstructorParameters<typeof ConnectionGuard>[0]> = {}) {
  return new ConnectionGuard({
    maxConnections: 4,
    maxConnectionsPerKey: 2,
    maxPendingConnections: 3,
    maxPendingPerAddress: 2,
    handshakeTimeoutMs: 60_000,
    ...limits,
  });
}

describe("ConnectionGuard", () => {
  it("closes the oldest pending socket of a full address, then the oldest of a full pool", () => {
    const guard = guardWith();
    const [first, second, third, fourth, fifth] = Array.from(
      { length: 5 },
      () => new PassThrough(),
    );
    guard.accept(first!, "10.0.0.1");
    guard.accept(second!, "10.0.0.1");
    guard.accept(third!, "10.0.0.1");
    expect([first!.destroyed, second!.destroyed, third!.destroyed]).toEqual([true, false, false]);
    guard.accept(fourth!, "10.0.0.2");
    guard.accept(fifth!, "10.0.0.3");
    expect(second!.destroyed).toBe(true);
    expect(guard.counts()).toEqual({ pending: 3, admitted: 0 });
    guard.close();
  });

  it("counts admitted sockets per key and in total, and moves a socket to a new key", () => {
    const guard = guardWith({ maxPendingConnections: 8 });
    const sockets = Array.from({ length: 5 }, () => new PassThrough());
    sockets.forEach((socket, index) => guard.accept(socket, `10.0.0.${index}`));
    expect(guard.admit(sockets[0]!, "a")).toBeUndefined();
    expect(guard.admit(sockets[1]!, "a")).toBeUndefined();
    expect(guard.admit(sockets[2]!, "a")?.message).toContain("max_connections_per_key = 2");
    expect(guard.admit(sockets[2]!, "b")).toBeUndefined();
    expect(guard.admit(sockets[3]!, "c")).toBeUndefined();
    const full = guard.admit(sockets[4]!, "c");
    expect(full?.status).toBe(503);
    expect(full?.message).toContain("max_connections = 4");
    // Moving does not add to the total; it frees a place under the old key.
    expect(guard.admit(sockets[1]!, "b")).toBeUndefined();
    expect(guard.admit(sockets[1]!, "b")).toBeUndefined();
    expect(guard.counts()).toEqual({ pending: 1, admitted: 4 });
    guard.close();
  });

  it("lets a public answer in flight finish after the handshake timeout, but only once", async () => {
    const guard = guardWith({ handshakeTimeoutMs: 50 });
    const [silent, answered, unread] = Array.from({ length: 3 }, () => new PassThrough());
    guard.accept(silent!, "10.0.0.1");
    guard.accept(answered!, "10.0.0.2");
    guard.accept(unread!, "10.0.0.3");
    guard.requestStarted(answered!);
    guard.requestStarted(unread!);
    await new Promise((resolve) => setTimeout(resolve, 75));
    expect([silent!.destroyed, answered!.destroyed, unread!.destroyed]).toEqual([
      true,
      false,
      false,
    ]);
    guard.requestEnded(answered!);
    expect(answered!.writableEnded).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unread!.destroyed).toBe(true);
    guard.close();
  });

  it("groups IPv6 addresses by /64 and IPv4-mapped ones with IPv4", () => {
    expect(addressBucketOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucketOf("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressBucketOf("::1")).toBe("0:0:0:0::/64");
    expect(addressBucketOf("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(addressBucketOf("192.0.2.7")).toBe("192.0.2.7");
    expect(addressBucketOf(undefined)).toBe("unknown");
  });
});
