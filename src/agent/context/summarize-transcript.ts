// The deterministic local summary compaction puts in place of older turns: what the user asked,
// which files were read and changed, which commands ran, and the last answer. No model call.
import type { TranscriptMessage } from "../transcript.ts";

const MAX_QUOTE_CHARS = 300;

export const SUMMARY_HEADER =
  "Summary of the earlier conversation (older messages were compacted to fit the context window):";

export function summarizeTranscript(messages: readonly TranscriptMessage[]): string {
  const requests: string[] = [];
  const read = new Set<string>();
  const changed = new Set<string>();
  const commands: string[] = [];
  let lastAnswer = "";
  for (const message of messages) {
    if (message.role === "user") {
      // An earlier summary is folded in rather than quoted as a request.
      if (message.content.startsWith(SUMMARY_HEADER))
        requests.push(message.content.slice(SUMMARY_HEADER.length).trim());
      else requests.push(`- The user asked: ${quote(message.content)}`);
    }
    if (message.role !== "assistant") continue;
    if (message.content.trim() !== "") lastAnswer = message.content;
    for (const call of message.toolCalls ?? []) {
      const args = parseArguments(call.arguments);
      if (call.name === "read_file" && typeof args.path === "string") read.add(args.path);
      if (call.name === "edit" && typeof args.path === "string") changed.add(args.path);
      if (call.name === "apply_patch" && typeof args.patch === "string") {
        for (const match of args.patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm))
          if (match[1] !== undefined) changed.add(match[1].trim());
      }
      if (call.name === "run_command" && typeof args.command === "string")
        commands.push(args.command);
    }
  }
  const lines = [SUMMARY_HEADER, ...requests];
  if (read.size > 0) lines.push(`- Files read: ${[...read].join(", ")}`);
  if (changed.size > 0) lines.push(`- Files changed: ${[...changed].join(", ")}`);
  if (commands.length > 0)
    lines.push(`- Commands run: ${commands.map((command) => `\`${command}\``).join(", ")}`);
  if (lastAnswer !== "") lines.push(`- Your last answer: ${quote(lastAnswer)}`);
  lines.push("Read files again before editing them: their earlier contents are no longer shown.");
  return lines.join("\n");
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(
    flat.length > MAX_QUOTE_CHARS ? `${flat.slice(0, MAX_QUOTE_CHARS)}…` : flat,
  );
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
