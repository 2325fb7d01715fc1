// The name a model sees for an MCP tool: `<server>__<tool>`, in the characters OpenAI-style tool
// names allow (letters, digits, _ and -) and at most 64 of them; a name that had to change keeps
// a short hash of the original, so two tools never collapse into one name.
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME_LENGTH = 64;
const SEPARATOR = "__";

export function qualifiedToolName(serverName: string, toolName: string): string {
  const original = `${serverName}${SEPARATOR}${toolName}`;
  const sanitized = original.replace(/[^A-Za-z0-9_-]/g, "_");
  if (sanitized === original && sanitized.length <= MAX_TOOL_NAME_LENGTH) return sanitized;
  const hash = createHash("sha256").update(original).digest("hex").slice(0, 8);
  return `${sanitized.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - 1)}_${hash}`;
}
