// Streams one tool call's JSON as it is sampled: the name once `"name": "…",` is complete, then the
// arguments' text as it grows, holding back a tail that may be the call object's closing brace.
// The grammar fixes the order (name, then arguments), so the header is found by one pattern.

// Matched once the arguments' first character is there, so they start without the whitespace.
const HEADER = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*(?=\S)/;
/** Whitespace and braces at the end: possibly the outer object's end, not the arguments'. */
const CLOSING_TAIL = /[\s}]*$/;

export interface ToolCallTextStep {
  /** The call's name, on the step it became known. */
  name?: string;
  /** New arguments text. */
  argumentsDelta: string;
}

export interface CompleteToolCall {
  name: string;
  /**
   * The arguments' JSON as sampled: what the deltas add up to, as OpenAI's `arguments.done`
   * repeats its deltas (compact JSON when the call could not be streamed).
   */
  argumentsText: string;
  /** Arguments text not sent as a delta yet. */
  argumentsRest: string;
}

export class ToolCallText {
  private text = "";
  private name: string | undefined;
  private argumentsStart = -1;
  private emittedTo = -1;

  push(piece: string): ToolCallTextStep {
    this.text += piece;
    const step: ToolCallTextStep = { argumentsDelta: "" };
    if (this.name === undefined) {
      const header = HEADER.exec(this.text);
      if (header === null) return step;
      this.name = JSON.parse(`"${header[1] ?? ""}"`) as string;
      this.argumentsStart = header[0].length;
      this.emittedTo = this.argumentsStart;
      step.name = this.name;
    }
    const safeEnd = this.text.length - (CLOSING_TAIL.exec(this.text)?.[0].length ?? 0);
    if (safeEnd > this.emittedTo) {
      step.argumentsDelta = this.text.slice(this.emittedTo, safeEnd);
      this.emittedTo = safeEnd;
    }
    return step;
  }

  /** The whole call; throws when the text is not a complete call object. */
  complete(): CompleteToolCall {
    const call = JSON.parse(this.text) as { name?: unknown; arguments?: unknown };
    if (typeof call.name !== "string") throw new Error("a tool call without a name");
    if (this.name === undefined) {
      const argumentsText = JSON.stringify(call.arguments ?? {});
      return { name: call.name, argumentsText, argumentsRest: argumentsText };
    }
    // The raw arguments end before the outer object's closing brace.
    const outerEnd = this.text.lastIndexOf("}");
    const rawArguments = this.text.slice(this.argumentsStart, outerEnd).trimEnd();
    return {
      name: call.name,
      argumentsText: rawArguments,
      argumentsRest: rawArguments.slice(this.emittedTo - this.argumentsStart),
    };
  }
}
