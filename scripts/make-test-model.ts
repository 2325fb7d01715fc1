// `npm run make-test-model -- <out.gguf> [--shape tiny|0.5b|1.5b] [--type f32|f16|q8_0] [--seed N]`:
// writes a random-weight llama GGUF for tests and benchmarks and prints its size and parameters.

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SparkError } from "../src/protocol/spark-error.ts";
import type { GgufTensorType } from "../src/engines/llama-cpp/gguf/tensor-encoding.ts";
import { isTestModelShapeName } from "../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import { writeTestModel } from "../src/engines/llama-cpp/gguf/write-test-model.ts";

const usage =
  "usage: npm run make-test-model -- <out.gguf> [--shape tiny|0.5b|1.5b] [--type f32|f16|q8_0] [--seed N]";
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
  const type = values.type;
  if (type !== undefined && !tensorTypes.some((known) => known === type)) {
    throw invalid(`Unknown --type "${type}".`);
  }
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw invalid(`--seed must be an integer from 0 to 4294967295, got "${values.seed}".`);
  }
  return {
    outputPath: resolve(outputPath),
    shape: values.shape,
    type: type as GgufTensorType | undefined,
    seed,
  };
}

async function main(): Promise<void> {
  const options = parseCommandLine(process.argv.slice(2));
  if (options === undefined) {
    console.log(usage);
    return;
  }
  const started = performance.now();
  const result = await writeTestModel(options.outputPath, options);
  const seconds = (performance.now() - started) / 1000;
  console.log(result.path);
  console.log(
    `shape ${result.shape}, type ${result.type}, seed ${result.seed}: ` +
      `${(result.byteLength / 1024 / 1024).toFixed(1)} MiB, ` +
      `${result.parameterCount.toLocaleString("en-US")} parameters, written in ${seconds.toFixed(1)} s`,
  );
}

main().catch((error: unknown) => {
  const sparkError = SparkError.from(error);
  console.error(`make-test-model: ${sparkError.message}`);
  process.exitCode = sparkError.code === "invalid_request" ? 2 : 1;
});
