// Run by build-native-loop.ts in a child process: loads the freshly built addon and binds it to
// node-llama-cpp's CPU binding, so a function the installed llama.cpp lacks fails the build.
import { createRequire } from "node:module";
import { openLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import type { GenerationLoopAddon } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";

const addonFile = process.argv[2];
if (addonFile === undefined) throw new Error("usage: check-native-loop.ts <addon.node>");
const addon = createRequire(import.meta.url)(addonFile) as GenerationLoopAddon;
const backend = await openLlamaBackend(false);
try {
  if (backend.bindingPath === undefined)
    throw new Error("node-llama-cpp loaded no llama-addon.node");
  const binding = addon.bindLlama(backend.bindingPath);
  if (!binding.devices.some((device) => device.type === "cpu")) {
    throw new Error(`llama.cpp in ${binding.ggmlLibrary} lists no CPU device`);
  }
} finally {
  await backend.llama.dispose();
}
