// The one place tool output is cut to fit the model's context: at most 256 lines and 32 KB, keeping
// the head (or the tail, for command output), with a note saying how to get the rest.

export const TOOL_OUTPUT_MAX_LINES = 256;
export const TOOL_OUTPUT_MAX_BYTES = 32 * 1024;

export interface CapOptions {
  keep: "head" | "tail";
  continuation?: ((keptLines: number) => string) | undefined;
  maxLines?: number;
  maxBytes?: number;
}

export function capToolOutput(output: string, options: CapOptions): string {
  const maxLines = options.maxLines ?? TOOL_OUTPUT_MAX_LINES;
  const maxBytes = options.maxBytes ?? TOOL_OUTPUT_MAX_BYTES;
  const lines = output.split("\n");
  if (lines.length <= maxLines && Buffer.byteLength(output) <= maxBytes) return output;
  const ordered = options.keep === "head" ? lines : [...lines].reverse();
  const kept: string[] = [];
  let bytes = 0;
  for (const line of ordered) {
    const lineBytes = Buffer.byteLength(line) + 1;
    if (kept.length >= maxLines || bytes + lineBytes > maxBytes) {
      // A single huge line still shows its start rather than nothing.
      if (kept.length === 0) kept.push(`${line.slice(0, Math.floor(maxBytes / 4))}…`);
      break;
    }
    kept.push(line);
    bytes += lineBytes;
  }
  const hint =
    options.continuation?.(kept.length) ??
    "Narrow the request (a smaller line range, a more specific path or pattern) to see the rest.";
  if (options.keep === "head") {
    return `${kept.join("\n")}\n[output truncated: showed the first ${kept.length} of ${lines.length} lines. ${hint}]`;
  }
  return `[output truncated: showing the last ${kept.length} of ${lines.length} lines. ${hint}]\n${kept.reverse().join("\n")}`;
}
