// Opens the model an agent session talks to in this process: a configured name (through the
// registry, shared) or script:<file.jsonl> (a scripted engine of its own, so every session reads
// its script from the first turn). Used by `spark exec`, `spark eval`, the app server
// and the terminal UI (script paths).
import path from "node:path";
import { InProcessModelClient } from "../agent/model-client/in-process-model-client.ts";
import type { ModelClient } from "../agent/model-client/model-client.ts";
import { RoutedModelClient } from "../agent/model-client/routed-model-client.ts";
import type { Engine } from "../engines/engine.ts";
import type { HostContext } from "./host-context.ts";

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

/** script:<relative path> with its path made absolute against `base`; other names unchanged. */
export function resolveScriptModel<Model extends string | undefined>(
  model: Model,
  base: string,
): Model {
  if (!isScriptModel(model)) return model;
  return `${SCRIPT_MODEL_PREFIX}${path.resolve(base, model.slice(SCRIPT_MODEL_PREFIX.length))}` as Model;
}

/**
 * `model`: a configured name, script:<file.jsonl>, or undefined for the configured default.
 * A script path is resolved against `invokedIn` (where spark was started, not the session's cwd).
 */
export async function openAgentModel(
  context: HostContext,
  model: string | undefined,
  invokedIn: string,
): Promise<OpenedAgentModel> {
  if (isScriptModel(model)) {
    const file = resolveScriptModel(model, invokedIn).slice(SCRIPT_MODEL_PREFIX.length);
    const { createScriptEngine } = await import("../engines/script/index.ts");
    const engine = await createScriptEngine({ path: file });
    return { name: "script", client: new InProcessModelClient(engine), ownedEngine: engine };
  }
  // Routed per model call: `auto` (or an alias) is decided on each step's request. The context
  // window budgeted against is the route's first model's.
  const requested = model ?? context.config.defaultModel;
  const name = await context.router.load(requested);
  const configured = context.config.models[name];
  // A context chosen at load (no context_size) is the one the engine reports.
  const contextSize =
    configured !== undefined && "contextSize" in configured && configured.contextSize !== undefined
      ? configured.contextSize
      : configured?.engine === "llama-cpp"
        ? (await (await context.registry.engineFor(name)).engine.listModels())[0]?.contextLength
        : undefined;
  return {
    name: requested ?? name,
    client: new RoutedModelClient(context.router, requested),
    ...(contextSize === undefined ? {} : { contextWindowTokens: contextSize }),
  };
}

/** An opened model as a session holds it: closing it closes the client and any engine made for it. */
export interface ClosableAgentModel {
  name: string | undefined;
  client: ModelClient;
  contextWindowTokens?: number;
  close(): Promise<void>;
}

/** openAgentModel for a session that owns what it opened (the app server's sessions, eval runs). */
export async function openClosableAgentModel(
  context: HostContext,
  model: string | undefined,
  invokedIn: string,
): Promise<ClosableAgentModel> {
  const opened = await openAgentModel(context, model, invokedIn);
  return {
    name: opened.name,
    client: opened.client,
    ...(opened.contextWindowTokens === undefined
      ? {}
      : { contextWindowTokens: opened.contextWindowTokens }),
    close: async () => {
      await opened.client.close();
      await opened.ownedEngine?.dispose();
    },
  };
}
