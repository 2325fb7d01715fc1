// `npm run make-test-model -- <out.gguf> [--shape micro|wide|tiny|0.5b|1.5b] [--type f32|f16|q8_0] [--seed N]
// [--arch qwen2|llama] [--context N] [--ends-turns] [--fim-tokens] [--dry-run]`: writes a random-weight llama-family GGUF for tests and
// benchmarks and prints its path, size and parameter count.

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SparkError } from "../src/protocol/spark-error.ts";
import type { GgufTensorType } from "../src/engines/llama-cpp/gguf/tensor-encoding.ts";
import { isTestModelShapeName } from "../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import {
  measureTestModel,
  testModelArchitectures,
  writeTestModel,
  type WriteTestModelResult,
} from "../src/engines/llama-cpp/gguf/write-test-model.ts";

const usage =
  "usage: npm run make-test-model -- <out.gguf> [--shape micro|wide|tiny|0.5b|1.5b] [--type f32|f16|q8_0] [--seed N] [--arch qwen2|llama] [--context N] [--ends-turns] [--fim-tokens] [--dry-run]";
const tensorTypes: readonly GgufTensorType[] = ["f32", "f16", "q8_0"];

function invalid(message: string): SparkError {
  return new SparkError("invalid_request", `${message}\n${usage}`);
}

function parseCommandLine(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        shape: { type: "string", default: "tiny" },
        type: { type: "string" },
        seed: { type: "string", default: "1" },
        arch: { type: "string", default: "qwen2" },
        context: { type: "string" },
        "ends-turns": { type: "boolean", default: false },
        "fim-tokens": { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return undefined;
  const [outputPath, ...extra] = positionals;
  if (outputPath === undefined || extra.length > 0) throw invalid("Give exactly one output path.");
  if (!isTestModelShapeName(values.shape)) throw invalid(`Unknown --shape "${values.shape}".`);
  const type = tensorTypes.find((known) => known === values.type);
  if (values.type !== undefined && type === undefined) {
    throw invalid(`Unknown --type "${values.type}".`);
  }
  const architecture = testModelArchitectures.find((known) => known === values.arch);
  if (architecture === undefined) throw invalid(`Unknown --arch "${values.arch}".`);
  const seed = Number(values.seed);
  if (!/^\d+$/.test(values.seed) || seed > 0xffffffff) {
    throw invalid(`--seed must be an integer from 0 to 4294967295, got "${values.seed}".`);
  }
  const contextLength = values.context === undefined ? undefined : Number(values.context);
  if (values.context !== undefined && !/^\d+$/.test(values.context)) {
    throw invalid(`--context must be a whole number of tokens, got "${values.context}".`);
  }
  return {
    outputPath: resolve(outputPath),
    ...(contextLength === undefined ? {} : { contextLength }),
    endsTurns: values["ends-turns"],
    fimTokens: values["fim-tokens"],
    shape: values.shape,
    type,
    seed,
    architecture,
    dryRun: values["dry-run"],
  };
}

function describe(result: Omit<WriteTestModelResult, "path">): string {
  return (
    `${result.architecture} ${result.shape}, ${result.type}, seed ${result.seed}, context ${result.contextLength}: ` +
    `${(result.byteLength / 1024 / 1024).toFixed(1)} MiB (${result.byteLength} bytes), ` +
    `${result.parameterCount.toLocaleString("en-US")} parameters`
  );
}

async function main(): Promise<void> {
  const options = parseCommandLine(process.argv.slice(2));
  if (options === undefined) {
    console.log(usage);
    return;
  }
  if (options.dryRun) {
    const planned = measureTestModel(options);
    console.log(`would write ${options.outputPath}`);
    console.log(describe(planned));
    return;
  }
  const started = performance.now();
  const result = await writeTestModel(options.outputPath, options);
  const seconds = (performance.now() - started) / 1000;
  console.log(result.path);
  console.log(`${describe(result)}, written in ${seconds.toFixed(1)} s`);
}

main().catch((error: unknown) => {
  const sparkError = SparkError.from(error);
  console.error(`make-test-model: ${sparkError.message}`);
  process.exitCode = sparkError.code === "invalid_request" ? 2 : 1;
});
