// Bundles the extension, the shared agent protocol (src/protocol/agent) and zod into one CommonJS
// file; `vscode` is provided by the editor at run time. The Ask Spark page script (with the shared
// transcript module's Markdown reader and highlighter, src/protocol/transcript) is a second
// bundle, run inside the webview.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

// The clone this build comes from: the launcher runs its bin/spark.js where `spark` is not on
// PATH (a user who cloned the repository and never installed it globally).
const repository = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

await build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: "dist/extension.cjs",
  // ws loads these native speed-ups only when present.
  external: ["vscode", "bufferutil", "utf-8-validate"],
  define: { SPARK_BUILD_REPOSITORY: JSON.stringify(repository) },
  sourcemap: true,
  logLevel: "warning",
});

await build({
  entryPoints: ["src/page/ask-page.ts"],
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2022",
  outfile: "dist/ask-page.js",
  logLevel: "warning",
});
