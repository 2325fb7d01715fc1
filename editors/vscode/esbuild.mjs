// Bundles the extension, the shared agent protocol (src/protocol/agent) and zod into one CommonJS
// file; `vscode` is provided by the editor at run time.
import { build } from "esbuild";

await build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: "dist/extension.cjs",
  // ws loads these native speed-ups only when present.
  external: ["vscode", "bufferutil", "utf-8-validate"],
  sourcemap: true,
  logLevel: "warning",
});
