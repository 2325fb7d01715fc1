// Opens the model an agent session talks to in this process: a configured name (through the
// registry, shared) or script:<file.jsonl> (a scripted engine of its own, so every session reads
// its script from the first turn). Used by `spark exec` and the app server.
import path from "node:path";
import { InProcessModelClient } from "../agent/model-client/in-process-model-client.ts";
import type { ModelClient } from "../agent/model-client/model-client.ts";
import type { Engine } from "../engines/engine.ts";
import type { CliContext } from "./cli-context.ts";

export const SCRIPT_MODEL_PREFIX = "script:";

export interface OpenedAgentModel {
  /** Undefined when a gateway picks its default model. */
  name: string | undefined;
  client: ModelClient;
  contextWindowTokens?: number;
  /** An engine made here (not by the registry), disposed with the session. */
  ownedEngine?: Engine;
}

export function isScriptModel(model: string | undefined): model is string {
  return model?.startsWith(SCRIPT_MODEL_PREFIX) === true;
}

/**
 * `model`: a configured name, script:<file.jsonl>, or undefined for the configured default.
 * A script path is resolved against `invokedIn` (where spark was started, not the session's cwd).
 */
export async function openAgentModel(
  context: CliContext,
  model: string | undefined,
  invokedIn: string,
): Promise<OpenedAgentModel> {
  if (isScriptModel(model)) {
    const file = path.resolve(invokedIn, model.slice(SCRIPT_MODEL_PREFIX.length));
    const { createScriptEngine } = await import("../engines/script/script-engine.ts");
    const engine = await createScriptEngine({ path: file });
    return { name: "script", client: new InProcessModelClient(engine), ownedEngine: engine };
  }
  const { name, engine } = await context.registry.engineFor(model ?? context.config.defaultModel);
  const configured = context.config.models[name];
  const contextSize =
    configured !== undefined && "contextSize" in configured ? configured.contextSize : undefined;
  return {
    name,
    client: new InProcessModelClient(engine),
    ...(contextSize === undefined ? {} : { contextWindowTokens: contextSize }),
  };
}
