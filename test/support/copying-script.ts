// A scripted model whose greedy output copies a file wherever a JSON string starts: the successor
// chain of the file's JSON-escaped text, from the opening quote to the closing one. Tests and
// benches of prompt lookup inside tool calls give it that file in a tool result.
import type { TokenSuccessors } from "../../src/engines/llama-cpp/gguf/successor-weights.ts";

/**
 * Distinct bytes and one line break, so every character has one successor; no pair the test
 * model's byte tokenizer merges (he, in, re, on, er, " t", " a") is adjacent.
 */
export const COPIED_FILE =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklm\nopqrstuvwxyz#$%&()*+-./:;<=>?@[]^_{|}~";

/** COPIED_FILE as a JSON string holds it (the line break as `\n`). */
export const COPIED_FILE_ESCAPED = JSON.stringify(COPIED_FILE).slice(1, -1);

/** Each character of the escaped file followed by the next; a string ends after the last. */
export function copyingSuccessors(): TokenSuccessors {
  const characters = ['"', ...COPIED_FILE_ESCAPED, '"'];
  const successors: Record<string, string> = {};
  for (let index = 0; index + 1 < characters.length; index += 1) {
    successors[characters[index] as string] = characters[index + 1] as string;
  }
  return successors;
}
