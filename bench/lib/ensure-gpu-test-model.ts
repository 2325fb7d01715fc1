// The 1.5B-shape test model for the GPU scenario (2.9 GiB of f16, written once into the test
// model cache), with progress printed while it is written: it takes minutes on a cold machine.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { measureTestModel } from "../../src/engines/llama-cpp/gguf/write-test-model.ts";
import { ensureTestModel, testModelDirectory } from "../../test/support/test-model.ts";

export async function ensureGpuTestModel(log: (line: string) => void): Promise<string> {
  const expectedBytes = measureTestModel({ shape: "1.5b" }).byteLength;
  const startedAt = Date.now();
  let lastReport = "";
  const timer = setInterval(() => {
    void writtenBytes().then((bytes) => {
      if (bytes === 0) return;
      const report = `  writing the 1.5B-shape test model: ${(bytes / 1024 ** 3).toFixed(2)} of ${(expectedBytes / 1024 ** 3).toFixed(2)} GiB, ${((Date.now() - startedAt) / 1000).toFixed(0)} s`;
      if (report !== lastReport) log(report);
      lastReport = report;
    });
  }, 5000);
  try {
    return await ensureTestModel({ shape: "1.5b" });
  } finally {
    clearInterval(timer);
  }
}

/** Bytes of the 1.5B model's temporary file being written (0 when none is). */
async function writtenBytes(): Promise<number> {
  try {
    const names = await readdir(testModelDirectory);
    const partial = names.filter((name) => name.includes("-1.5b-") && name.endsWith(".tmp"));
    let bytes = 0;
    for (const name of partial) bytes += (await stat(join(testModelDirectory, name))).size;
    return bytes;
  } catch {
    return 0;
  }
}
