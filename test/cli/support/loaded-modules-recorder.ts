// What a spawned `spark` process loads, from its own ESM loader: given to the child through
// NODE_OPTIONS (`--import`, before tsx or the bundle and the CLI), a loader hook appends each
// module's URL to the file SPARK_TEST_LOADED_MODULES names. Inline data: modules, so no JavaScript
// file outside the typed project.
const RECORDER_HOOKS = `import { appendFileSync } from "node:fs";
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  appendFileSync(process.env.SPARK_TEST_LOADED_MODULES, url + "\\n");
  return loaded;
}`;
const RECORDER = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDER_HOOKS)}`)});`;

/** The `--import` option that installs the recorder; append it to the child's NODE_OPTIONS. */
export const RECORDER_OPTION = `--import=data:text/javascript,${encodeURIComponent(RECORDER)}`;
