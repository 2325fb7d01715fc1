#!/usr/bin/env node
// Launcher: runs the prebuilt CLI bundle (dist/cli/, `npm run build:cli`) while it is current, else
// the TypeScript through tsx's loader, so `npx spark` works without a build step and a developer
// who edited a file runs exactly their code. SPARK_NO_BUNDLE=1 forces tsx; SPARK_DEBUG_LAUNCHER=1
// says on stderr which one ran and why.
import { fileURLToPath, pathToFileURL } from "node:url";
import { holdKeysEarly } from "./hold-keys-early.js";
// Before the CLI loads: keys typed meanwhile must not be echoed above the terminal UI.
holdKeysEarly();
const { chooseCliEntry } = await import("./cli-bundle.js");
const checkStartedAt = performance.now();
const choice = chooseCliEntry();
if (process.env.SPARK_DEBUG_LAUNCHER === "1") {
  const milliseconds = (performance.now() - checkStartedAt).toFixed(1);
  process.stderr.write(
    choice.bundle === undefined
      ? `spark launcher: tsx (${choice.reason}; checked in ${milliseconds} ms)\n`
      : `spark launcher: bundle (checked in ${milliseconds} ms)\n`,
  );
}
if (choice.bundle !== undefined) {
  // Source maps stay off: Node reads every chunk's map as it loads (~0.1 s of CPU, a fifth of a
  // start). `NODE_OPTIONS=--enable-source-maps` (or SPARK_NO_BUNDLE=1) names the src/ lines.
  await import(pathToFileURL(choice.bundle).href);
} else {
  // The project's own tsconfig, wherever spark is started: the terminal UI's TSX needs its JSX setting.
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  await import("../src/cli/main.ts");
}
