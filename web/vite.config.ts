// Builds the browser app (web/) into web/dist, which `spark serve` serves at `/`.
// Run from the repository root as `vite build web` (npm's `prepare` does it).
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // One small bundle; the Content-Security-Policy forbids inline script, so nothing is inlined.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
