// An MCP tool result as the text a model reads: text blocks as they are, and every other block
// (images, audio, embedded resources, resource links, structured content) described in a line,
// never dropped silently, since the engines here take text only.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type ContentBlock = CallToolResult["content"][number];

/** Embedded text longer than this is cut here; the registry caps the whole output after. */
const MAX_EMBEDDED_TEXT = 20_000;

export function mcpResultText(result: CallToolResult): string {
  const parts = result.content.map(describeBlock);
  if (result.structuredContent !== undefined && !hasText(result)) {
    parts.push(`[structured content] ${JSON.stringify(result.structuredContent)}`);
  }
  const text = parts.join("\n").trim();
  return text === "" ? "(the tool returned no content)" : text;
}

function hasText(result: CallToolResult): boolean {
  return result.content.some((block) => block.type === "text" && block.text.trim() !== "");
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${decodedBytes(block.data)} bytes, not shown: this model reads text only]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${decodedBytes(block.data)} bytes, not played: this model reads text only]`;
    case "resource": {
      const resource = block.resource;
      const kind = resource.mimeType === undefined ? "" : ` (${resource.mimeType})`;
      if ("text" in resource && typeof resource.text === "string") {
        const text =
          resource.text.length > MAX_EMBEDDED_TEXT
            ? `${resource.text.slice(0, MAX_EMBEDDED_TEXT)}\n[… cut at ${MAX_EMBEDDED_TEXT} characters]`
            : resource.text;
        return `[resource ${resource.uri}${kind}]\n${text}`;
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `[resource ${resource.uri}${kind}: ${decodedBytes(blob)} bytes of binary data, not shown]`;
    }
    case "resource_link": {
      const description = block.description === undefined ? "" : `: ${block.description}`;
      const kind = block.mimeType === undefined ? "" : ` (${block.mimeType})`;
      return `[resource link ${block.uri}${kind} "${block.name}"${description}]`;
    }
    default:
      return `[content of type ${JSON.stringify((block as { type: unknown }).type)}, not shown]`;
  }
}

function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
