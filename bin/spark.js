#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx's loader so `npx spark` works without a build step.
// The project's own tsconfig, wherever spark is started: the terminal UI's TSX needs its JSX setting.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../src/cli/main.ts");
