import { describe, expect, it } from "vitest";
import type { ChatMessage, EngineRequest } from "../engines/engine.ts";
import { replicaAffinityKey } from "./replica-affinity-key.ts";

const system: ChatMessage = { role: "system", content: "You are terse." };
const first: ChatMessage = { role: "user", content: "chain: turn 1" };
const request = (messages: ChatMessage[], extra: Partial<EngineRequest> = {}): EngineRequest => ({
  messages,
  ...extra,
});

describe("replicaAffinityKey", () => {
  it("keeps a keyless conversation's turns together, the first one included", () => {
    const turnOne = replicaAffinityKey(request([system, first]));
    const turnTwo = replicaAffinityKey(
      request(
        [system, first, { role: "assistant", content: "ok" }, { role: "user", content: "turn 2" }],
        { affinityKey: "anonymous/resp_1" },
      ),
    );
    expect(turnOne).toMatch(/^start:/);
    expect(turnTwo).toBe(turnOne);
  });

  it("tells conversations, instructions and tenants apart", () => {
    const base = replicaAffinityKey(request([system, first]));
    expect(replicaAffinityKey(request([system, { role: "user", content: "other" }]))).not.toBe(
      base,
    );
    expect(replicaAffinityKey(request([first]))).not.toBe(base);
    expect(replicaAffinityKey(request([system, first], { cacheScope: "tenant-b" }))).not.toBe(base);
  });

  it("prefers the client's session key, and falls back to the affinity key without a user message", () => {
    expect(replicaAffinityKey(request([system, first], { sessionKey: "t/k" }))).toBe("t/k");
    const completion = request([], { affinityKey: "t/resp_1" });
    expect(replicaAffinityKey(completion)).toBe("t/resp_1");
    expect(replicaAffinityKey(request([]))).toBeUndefined();
  });
});
