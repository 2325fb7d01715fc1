// Test helper: the MCP servers the agent tests run, all from node_modules or this folder's
// fixtures (nothing downloads), and the user config.toml that declares them.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentWorkspace } from "./agent-workspace.ts";

const require = createRequire(import.meta.url);

/** server-everything's launcher: `node <it> stdio` or `node <it> streamableHttp` (PORT=…). */
export const EVERYTHING_SERVER = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

/** server-memory: a knowledge graph kept in MEMORY_FILE_PATH. */
export const MEMORY_SERVER = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")),
  "dist",
  "index.js",
);

/** Our own fixture servers, built on the SDK: `crash` exits during a call, `slow` starts late. */
export const FIXTURE_SERVER = fileURLToPath(
  new URL("../../fixtures/mcp/fixture-mcp-server.ts", import.meta.url),
);

/** TSX's loader, so `node --import <it> fixture.ts` runs the TypeScript fixture directly. */
export const TSX_LOADER = require.resolve("tsx");

/** Writes `$SPARK_HOME/config.toml` (the user's own config) with this TOML text. */
export function writeUserConfig(workspace: AgentWorkspace, toml: string): void {
  writeFileSync(path.join(path.dirname(workspace.sessionsDirectory), "config.toml"), toml);
}

/** A TOML string literal. */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}
