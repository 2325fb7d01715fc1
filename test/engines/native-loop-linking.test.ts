// The native loop's addon links no llama.cpp library: it calls the one node-llama-cpp loaded,
// found at run time (native/generation-loop/src/llama-library.cpp). Linking one tied it to the CPU
// package's file names, and under CUDA or Vulkan it mapped a second libllama with no backend.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";

const notBuilt = existsSync(defaultAddonPath) ? undefined : "the native loop is not built";

describe.skipIf(notBuilt !== undefined || process.platform !== "linux")(
  "native loop linking",
  () => {
    it("needs no llama.cpp library and leaves no llama.cpp symbol to the dynamic linker", () => {
      const dynamic = execFileSync("readelf", ["-d", defaultAddonPath], { encoding: "utf8" });
      const needed = [...dynamic.matchAll(/\(NEEDED\).*\[(.+)\]/g)].map((match) => match[1]);
      expect(needed.length).toBeGreaterThan(0);
      expect(needed.filter((name) => /llama|ggml/.test(name ?? ""))).toEqual([]);
      const undefinedSymbols = execFileSync("nm", ["-u", defaultAddonPath], { encoding: "utf8" });
      expect(undefinedSymbols).toContain("napi_");
      expect(undefinedSymbols.match(/\b(llama|ggml|gguf)_\w+/g) ?? []).toEqual([]);
    });
  },
);
