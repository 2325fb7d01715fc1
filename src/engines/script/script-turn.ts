// The scripted engine's file format: one JSON object per line, one line per model turn, checked
// with zod so a typo in a test script fails loudly with its line number.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { SparkError } from "../../protocol/spark-error.ts";

const scriptToolCallSchema = z
  .strictObject({
    name: z.string().min(1),
    /** An object (serialised with JSON.stringify) or the raw JSON text a model would produce. */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    /** A freeform (custom) tool's text: shorthand for `arguments: {"input": text}`, the shape
     * the gateway gives custom tools (see src/gateway/turn/request-tools.ts). */
    input: z.string().optional(),
    id: z.string().min(1).optional(),
  })
  .transform(({ input, ...call }) =>
    input === undefined ? call : { ...call, arguments: { input } },
  );

const scriptExpectationSchema = z.strictObject({
  /** The request's last message must contain this text. */
  lastMessageIncludes: z.string().optional(),
  /** The request's last message must have this role. */
  lastMessageRole: z.enum(["system", "user", "assistant", "tool"]).optional(),
  /** Some message of the request must contain this text. */
  anyMessageIncludes: z.string().optional(),
  /** Some assistant message of the request must carry reasoning containing this text (reasoning
   * passed back through a chain or a reasoning input item). */
  anyReasoningIncludes: z.string().optional(),
});

export const scriptTurnSchema = z.strictObject({
  /** The model's reasoning, played before the text as reasoning deltas (one a word). */
  reasoning: z.string().default(""),
  text: z.string().default(""),
  toolCalls: z.array(scriptToolCallSchema).default([]),
  /** Pause before each text delta and each tool-call chunk, so interrupts can land mid-stream. */
  delayMs: z.number().nonnegative().default(0),
  expect: scriptExpectationSchema.optional(),
  /** End the stream with this error after the text (fault tests). */
  error: z
    .strictObject({
      code: z.enum(["upstream_error", "upstream_timeout", "rate_limited", "network_error"]),
      message: z.string(),
    })
    .optional(),
});

export type ScriptTurn = z.infer<typeof scriptTurnSchema>;
export type ScriptTurnInput = z.input<typeof scriptTurnSchema>;
export type ScriptExpectation = z.infer<typeof scriptExpectationSchema>;

/** Parses JSONL text; blank lines and lines starting with `//` or `#` are comments. */
export function parseScript(text: string, source = "script"): ScriptTurn[] {
  const turns: ScriptTurn[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//") || trimmed.startsWith("#")) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new SparkError(
        "invalid_config",
        `${source}:${index + 1}: not valid JSON (${(error as Error).message}).`,
        { cause: error },
      );
    }
    const parsed = scriptTurnSchema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "(line)"}: ${issue.message}`)
        .join("; ");
      throw new SparkError("invalid_config", `${source}:${index + 1}: ${issues}`);
    }
    turns.push(parsed.data);
  });
  return turns;
}

export async function loadScript(path: string): Promise<ScriptTurn[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new SparkError(
      "invalid_config",
      `Cannot read the script file ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return parseScript(text, path);
}
