import { describe, expect, it } from "vitest";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import { canonicalJson, requestFingerprint } from "./request-fingerprint.ts";

const body = (fields: Record<string, unknown>): ResponseCreateBody => fields;

describe("requestFingerprint", () => {
  it("is the same for a retry: key order and delivery fields do not count", () => {
    const first = body({ model: "m", input: [{ role: "user", content: "hi" }], stream: true });
    const retry = body({
      stream_options: { include_obfuscation: false },
      input: [{ content: "hi", role: "user" }],
      model: "m",
    });
    expect(requestFingerprint(first)).toBe(requestFingerprint(retry));
  });

  it("differs when the input, the chain, the model or the options differ", () => {
    const base = { model: "m", input: "hi" };
    const fingerprints = [
      requestFingerprint(body(base)),
      requestFingerprint(body({ ...base, input: "hi!" })),
      requestFingerprint(body({ ...base, previous_response_id: "resp_1" })),
      requestFingerprint(body({ ...base, model: "n" })),
      requestFingerprint(body({ ...base, temperature: 0.5 })),
      requestFingerprint(body({ ...base, store: false })),
    ];
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });

  it("writes nested objects with sorted keys, leaving out undefined fields", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: undefined }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"f":2}]},"b":1}',
    );
  });
});
