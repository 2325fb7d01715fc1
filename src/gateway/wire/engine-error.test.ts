// What a remote client is told about an engine's failure: the upstream's fault as a 502, no
// addresses, Retry-After kept, and the original kept as the cause for the server's log.
import { describe, expect, it } from "vitest";
import { SparkError } from "../../protocol/spark-error.ts";
import { clientFacingEngineError } from "./engine-error.ts";
import { describeWireError } from "./wire-error.ts";

describe("clientFacingEngineError", () => {
  it("turns an upstream's protocol error into a retryable upstream_error without its URL", () => {
    const original = new SparkError(
      "protocol_error",
      'http://10.0.0.5:8000/v1 answered with content type "text/html" instead of text/event-stream',
    );
    const sent = clientFacingEngineError(original);
    expect(sent.code).toBe("upstream_error");
    expect(sent.retryable).toBe(true);
    expect(sent.message).not.toContain("10.0.0.5");
    expect(sent.cause).toBe(original);
    expect(describeWireError(original)).toMatchObject({ status: 502, code: "upstream_error" });
  });

  it("tells a refused connection from one that dropped, without the address", () => {
    const refused = clientFacingEngineError(
      new SparkError("network_error", "Could not connect to http://10.0.0.5:8000/v1.", {
        cause: Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:8000"), {
          code: "ECONNREFUSED",
        }),
      }),
    );
    const dropped = clientFacingEngineError(
      new SparkError("network_error", "The connection to http://10.0.0.5:8000/v1 closed.", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      }),
    );
    expect(refused.message).toBe("The model server behind this gateway could not be reached.");
    expect(dropped.message).toBe(
      "The model server behind this gateway closed the connection unexpectedly.",
    );
    expect(dropped.code).toBe("network_error");
  });

  it("does not blame the client's key for the gateway's upstream credentials", () => {
    const sent = clientFacingEngineError(
      new SparkError("authentication_failed", "https://api.example/v1 rejected the API key (401)."),
    );
    expect(describeWireError(sent)).toMatchObject({ status: 502, code: "upstream_error" });
    expect(sent.message).not.toContain("api.example");
  });

  it("keeps the code and Retry-After of a rate limit, redacting the address", () => {
    const sent = clientFacingEngineError(
      new SparkError("rate_limited", "https://api.example/v1 is rate limiting requests (429)", {
        retryable: true,
        retryAfterMs: 7000,
      }),
    );
    expect(sent).toMatchObject({ code: "rate_limited", retryable: true, retryAfterMs: 7000 });
    expect(sent.message).toBe("the upstream server is rate limiting requests (429)");
  });

  it("passes an error without addresses through unchanged", () => {
    const original = new SparkError("context_length_exceeded", "The conversation is too long.");
    expect(clientFacingEngineError(original)).toBe(original);
  });
});
