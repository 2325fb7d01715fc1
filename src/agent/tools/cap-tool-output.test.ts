// The single output cap: line and byte limits, head or tail kept, and the note that says more.
import { describe, expect, it } from "vitest";
import { capToolOutput } from "./cap-tool-output.ts";

describe("capToolOutput", () => {
  it("leaves short output alone", () => {
    expect(capToolOutput("a\nb", { keep: "head" })).toBe("a\nb");
  });

  it("keeps the tail for command output, with the note first", () => {
    const output = Array.from({ length: 10 }, (_, index) => `l${index}`).join("\n");
    expect(capToolOutput(output, { keep: "tail", maxLines: 3 })).toBe(
      "[output truncated: showing the last 3 of 10 lines. Narrow the request (a smaller line range, a more specific path or pattern) to see the rest.]\nl7\nl8\nl9",
    );
  });

  it("honours the byte limit and shows the start of one huge line", () => {
    const capped = capToolOutput("x".repeat(100_000), { keep: "head", maxBytes: 1000 });
    expect(capped.length).toBeLessThan(1000);
    expect(capped).toMatch(/^x+…\n\[output truncated/);
  });
});
