// Checks a script line's `expect` block against the request, so a test whose conversation went
// off the rails fails with a message naming what was expected instead of replaying blindly.
import type { EngineRequest } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { ScriptExpectation } from "./script-turn.ts";

export function checkExpectation(
  expectation: ScriptExpectation | undefined,
  request: EngineRequest,
  lineNumber: number,
): SparkError | undefined {
  if (expectation === undefined) return undefined;
  const last = request.messages.at(-1);
  const failures: string[] = [];
  if (
    expectation.lastMessageIncludes !== undefined &&
    last?.content.includes(expectation.lastMessageIncludes) !== true
  ) {
    failures.push(
      `the last message to include ${JSON.stringify(expectation.lastMessageIncludes)}, but it was ${describe(last?.content)}`,
    );
  }
  if (expectation.lastMessageRole !== undefined && last?.role !== expectation.lastMessageRole) {
    failures.push(
      `the last message to have role "${expectation.lastMessageRole}", but it was "${last?.role ?? "none"}"`,
    );
  }
  if (
    expectation.anyMessageIncludes !== undefined &&
    !request.messages.some((message) =>
      message.content.includes(expectation.anyMessageIncludes ?? ""),
    )
  ) {
    failures.push(`some message to include ${JSON.stringify(expectation.anyMessageIncludes)}`);
  }
  const reasoningWanted = expectation.anyReasoningIncludes;
  if (
    reasoningWanted !== undefined &&
    !request.messages.some(
      (message) => message.role === "assistant" && message.reasoning?.includes(reasoningWanted),
    )
  ) {
    failures.push(
      `some assistant message's reasoning to include ${JSON.stringify(reasoningWanted)}`,
    );
  }
  if (failures.length === 0) return undefined;
  return new SparkError(
    "invalid_request",
    `Script turn ${lineNumber} expected ${failures.join("; and ")}.`,
  );
}

function describe(content: string | undefined): string {
  if (content === undefined) return "missing";
  return JSON.stringify(content.length > 200 ? `${content.slice(0, 200)}…` : content);
}
