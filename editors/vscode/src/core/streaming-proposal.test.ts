import { describe, expect, it } from "vitest";
import {
  finishedProposal,
  proposalAfterStop,
  proposalWhileStreaming,
  resembles,
} from "./streaming-proposal.ts";

const original = "function add(x, y) {\n  return x + y;\n}";

describe("proposalWhileStreaming", () => {
  it("starts as the original and keeps its not-yet-rewritten tail", () => {
    expect(proposalWhileStreaming(original, "")).toBe(original);
    expect(proposalWhileStreaming(original, "function add(x, y) {\n")).toBe(original);
    expect(proposalWhileStreaming(original, "function add(x, y) {\n  if (typeof")).toBe(
      "function add(x, y) {\n  if (typeof\n  return x + y;\n}",
    );
  });

  it("replaces a changed line by its rewrite once the rewrite's line is whole", () => {
    expect(proposalWhileStreaming(original, "function add(x, y) {\n  return (x + y) | 0;\n")).toBe(
      "function add(x, y) {\n  return (x + y) | 0;\n}",
    );
  });

  it("keeps the tail after an inserted block whose closing bracket matches a later line", () => {
    const streamed = "function add(x, y) {\n  if (x) {\n    throw 1;\n  }\n";
    expect(proposalWhileStreaming(original, streamed)).toBe(`${streamed}  return x + y;\n}`);
  });

  it("ends with exactly what streamed once every original line is passed", () => {
    const done = "function add(x, y) {\n  return (x + y) | 0;\n}";
    expect(proposalWhileStreaming(original, done)).toBe(done);
  });
});

describe("proposalAfterStop", () => {
  it("drops the half-written line and keeps the original's tail instead of deleting it", () => {
    expect(proposalAfterStop(original, "function add(x, y) {\n  if (typeof")).toBe(original);
    expect(
      proposalAfterStop(
        original,
        "function add(x, y) {\n  if (typeof x !== 'number') throw 1;\n  ret",
      ),
    ).toBe("function add(x, y) {\n  if (typeof x !== 'number') throw 1;\n  return x + y;\n}");
  });

  it("is the original when no whole line streamed", () => {
    expect(proposalAfterStop(original, "funct")).toBe(original);
  });
});

describe("finishedProposal", () => {
  it("keeps the selection's final newline when the reply has none", () => {
    expect(finishedProposal("a\n", "b")).toBe("b\n");
    expect(finishedProposal("a", "b")).toBe("b");
    expect(finishedProposal("a\n", "b\n")).toBe("b\n");
  });
});

describe("resembles", () => {
  it("pairs a rewritten line with its original but not with an unrelated one", () => {
    expect(resembles("  return (x + y) | 0;", "  return x + y;")).toBe(true);
    expect(resembles("  if (typeof x", "  return x + y;")).toBe(false);
    expect(resembles("return x;", "  return x;")).toBe(false);
  });
});
