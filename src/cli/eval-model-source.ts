// A model `spark eval` compares, opened exactly as `spark exec --model <model>` opens it: the
// model goes through the config (a name, an alias routed by the router, a .gguf path) or is a
// script:<file.jsonl> with a fresh scripted engine per run.
import type { EvalModelSource } from "../eval/run-eval.ts";
import type { EvalModelSession } from "../eval/run-eval-task.ts";
import { createHostContext, type HostContext } from "../host/host-context.ts";
import { isScriptModel, openClosableAgentModel } from "../host/open-agent-model.ts";

/** `model` undefined: the configured default (as `spark exec` without --model); `label` names it. */
export function evalModelSource(
  model: string | undefined,
  label: string,
  invokedIn: string,
): EvalModelSource {
  const isScript = isScriptModel(model);
  // One context (config, registry, router) per model, made on its first run and kept for its
  // others, so a local model is loaded once and its engine unloaded before the next model's.
  let context: Promise<HostContext> | undefined;
  const contextFor = (): Promise<HostContext> =>
    (context ??= createHostContext(isScript || model === undefined ? {} : { model }));
  return {
    label,
    openModel: async (): Promise<EvalModelSession> =>
      openClosableAgentModel(await contextFor(), isScript ? model : undefined, invokedIn),
    dispose: async () => {
      if (context === undefined) return;
      const made = await context.catch(() => undefined);
      await made?.registry.dispose();
    },
  };
}
