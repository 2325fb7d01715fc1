// The transcript every surface shows, DOM-free: session events folded into items, Markdown read
// into a block and inline tree, code highlighted into typed spans, token counts written one way.
// The terminal (Ink), the browser app (Preact) and the editor's webview each render it their way.
export * from "./format-tokens.ts";
export * from "./highlight.ts";
export * from "./markdown.ts";
export * from "./markdown-inline.ts";
export * from "./markdown-lines.ts";
export * from "./fold-session-events.ts";
export * from "./transcript-items.ts";
export * from "./transcript-queries.ts";
