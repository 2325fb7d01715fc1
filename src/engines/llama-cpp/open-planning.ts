// The engine open's side of remembered-open-plan.ts: whether an open may use or leave a plan (the
// prefix cache's folder is where it is kept, the host CPU is where it holds), and a promise's
// outcome as a value, so a context created beside the vocabulary's load is never left unfreed.
import type { LlamaModel } from "node-llama-cpp";
import type { LlamaBackend } from "./llama-backend.ts";
import {
  rememberedOpenPlan,
  rememberOpenPlan,
  type OpenPlan,
  type OpenPlanSettings,
} from "./remembered-open-plan.ts";
import type { ModelMemory } from "./cache-folder-record.ts";

export interface OpenPlanning {
  /** The plan a previous open left for this model and settings, if it still holds. */
  remembered: () => Promise<OpenPlan | undefined>;
  /** Leaves this open's choice for the next, off the open's path. */
  remember: (plan: Omit<OpenPlan, "chosenFromFreeMemory">, model: LlamaModel) => void;
}

/**
 * Planning for an open on the host CPU with the cache folder on; undefined otherwise (no folder to
 * keep plans in, no model identity to key them by, or a GPU backend, whose layers depend on the
 * VRAM free at each open).
 */
export function openPlanning(
  memory: ModelMemory | undefined,
  settings: OpenPlanSettings,
  backend: LlamaBackend | undefined,
): OpenPlanning | undefined {
  if (memory === undefined || backend === undefined || backend.llama.gpu !== false)
    return undefined;
  return {
    remembered: () => rememberedOpenPlan(memory, settings).catch(() => undefined),
    remember: (plan, model) => {
      void rememberOpenPlan(memory, settings, plan, model).catch(() => undefined);
    },
  };
}

/** A promise that never rejects: its value, or the reason it failed. */
export async function settle<T>(
  promise: Promise<T>,
): Promise<{ value: T; error?: undefined } | { value?: undefined; error: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}
