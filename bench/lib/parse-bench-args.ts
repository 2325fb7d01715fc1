// `npm run bench -- [options]`: which scenarios to run, at which size, on which model and threads.
import { parseArgs } from "node:util";
import { SparkError } from "../../src/protocol/spark-error.ts";
import type { BenchSize } from "./scenario.ts";

export interface BenchArgs {
  size: BenchSize;
  gpu: boolean;
  modelPath: string | undefined;
  scenarios: number[] | undefined;
  threads: number;
  resultsDirectory: string | undefined;
  help: boolean;
}

export const benchUsage = `usage: npm run bench -- [--quick] [--scenario N[,N…]]… [--model file.gguf] [--threads N] [--gpu]

  --quick          small sizes: the whole suite in under 3 minutes on 2 cores (CI may run it)
  --scenario N     run only these scenarios (1-9; repeat the flag or give a comma list)
  --model FILE     a real GGUF instead of the self-written test model (scenarios 1, 3, 4, 5, 6, 8, 9)
  --threads N      CPU threads for every engine, Spark's and llama-server's (default 1)
  --gpu            run scenario 6 (GPU decode); alone unless --scenario names others too, which
                   then run on the GPU where they can (scenario 4)
  --results DIR    where JSON, the report and charts go (default bench/results)
  --smoke          tiny sizes for the test suite; the numbers mean nothing
Scenario 5 runs when LLAMA_SERVER=<path to llama-server> is set.`;

export function parseBenchArgs(argv: string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        quick: { type: "boolean", default: false },
        smoke: { type: "boolean", default: false },
        gpu: { type: "boolean", default: false },
        model: { type: "string" },
        scenario: { type: "string", multiple: true },
        threads: { type: "string", default: "1" },
        results: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new SparkError("invalid_request", `${String(error)}\n${benchUsage}`);
  }
  const scenarios = values.scenario
    ?.flatMap((value) => value.split(","))
    .map((value) => Number(value.trim()));
  if (scenarios?.some((value) => !Number.isInteger(value) || value < 1 || value > 9)) {
    throw new SparkError("invalid_request", `--scenario takes numbers 1 to 9.\n${benchUsage}`);
  }
  const threads = Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1) {
    throw new SparkError("invalid_request", `--threads takes a positive integer.\n${benchUsage}`);
  }
  return {
    size: values.smoke ? "smoke" : values.quick ? "quick" : "full",
    gpu: values.gpu,
    modelPath: values.model,
    scenarios,
    threads,
    resultsDirectory: values.results,
    help: values.help,
  };
}
