// The parsed form of an apply_patch text (the Codex format): file operations, and for updates
// the chunks of context, removed and added lines.

export type PatchLineKind = "context" | "remove" | "add";

export interface PatchLine {
  kind: PatchLineKind;
  text: string;
}

export interface UpdateChunk {
  /** `@@ <anchor>` lines, outermost first; each is searched after the previous one. */
  anchors: string[];
  lines: PatchLine[];
  /** `*** End of File`: the chunk's old lines must end the file. */
  endOfFile: boolean;
  /** 1-based line of the patch text where the chunk starts, for error messages. */
  patchLine: number;
}

export type PatchOperation =
  | { type: "add-file"; path: string; content: string; patchLine: number }
  | { type: "delete-file"; path: string; patchLine: number }
  | {
      type: "update-file";
      path: string;
      moveTo: string | undefined;
      chunks: UpdateChunk[];
      patchLine: number;
    };

export interface ParsedPatch {
  operations: PatchOperation[];
}
