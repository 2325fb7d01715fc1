#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx's loader so `npx spark` works without a build step.
// The project's own tsconfig, wherever spark is started: the terminal UI's TSX needs its JSX setting.
import { fileURLToPath } from "node:url";
import { holdKeysEarly } from "./hold-keys-early.js";
// Before tsx and the CLI load: keys typed meanwhile must not be echoed above the terminal UI.
holdKeysEarly();
const { register } = await import("tsx/esm/api");
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../src/cli/main.ts");
