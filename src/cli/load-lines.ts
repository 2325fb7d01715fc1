// What a loaded model says once, in the serve log and `spark doctor`: the context it got and
// why, and a chat template that cannot run as the engine would (with what that means for tools).
import type { ModelRegistry } from "../router/model-registry.ts";

export async function loadLines(
  registry: Pick<ModelRegistry, "engineFor">,
  name: string,
): Promise<string[]> {
  const { engine } = await registry.engineFor(name);
  const lines: string[] = [];
  for (const info of await engine.listModels()) {
    if (info.contextLength !== undefined && info.contextLengthReason !== undefined) {
      lines.push(
        `model ${info.id}: context ${info.contextLength} tokens a sequence (${info.contextLengthReason})`,
      );
    }
    if (info.loadNotice !== undefined) lines.push(info.loadNotice);
  }
  return lines;
}
