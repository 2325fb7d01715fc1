// Writes a decode bench's test model into the test model cache unless it is there, and prints its
// path. bench/gpu-check.sh runs one per shape in parallel processes before its steps (writing a
// q8_0 shape takes most of a minute of one core) and hands the paths to the gateway scenario.
// Usage: npx tsx bench/write-shape-model.ts --shape 0.5b   (tiny in f32, the larger shapes in q8_0)
import { parseArgs } from "node:util";
import { benchModels } from "./lib/shape-models.ts";

const { values } = parseArgs({ options: { shape: { type: "string", default: "0.5b" } } });
const [model] = await benchModels({ shapes: values.shape });
if (model === undefined) throw new Error(`no test model for --shape ${values.shape}`);
console.log(model.path);
