// `spark prompt`'s completion: the router's route for the default model, its engine streamed
// straight to stdout (no agent, no tools). commands/prompt-command.ts loads it lazily.
import type { Timings, Usage } from "../../engines/engine.ts";
import { createHostContext, type HostContext } from "../../host/host-context.ts";

export interface PromptFlags {
  model?: string;
  stats?: boolean;
  system?: string;
  maxTokens?: string;
  temperature?: string;
  threads?: string;
}

export async function runPrompt(text: string, flags: PromptFlags): Promise<void> {
  const context = await createHostContext({
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
  });
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  process.once("SIGINT", onInterrupt);
  try {
    let usage: Usage | undefined;
    let timings: Timings | undefined;
    const sampling = {
      ...(flags.maxTokens === undefined ? {} : { maxOutputTokens: Number(flags.maxTokens) }),
      ...(flags.temperature === undefined ? {} : { temperature: Number(flags.temperature) }),
    };
    const messages = [
      ...(flags.system === undefined ? [] : [{ role: "system" as const, content: flags.system }]),
      { role: "user" as const, content: text },
    ];
    const request = { messages, sampling };
    const route = context.router.decide(context.config.defaultModel, request);
    const engine = context.router.engineFor(route);
    for await (const event of engine.stream(request, { signal: controller.signal })) {
      if (event.type === "text-delta") process.stdout.write(event.text);
      else if (event.type === "usage") usage = event.usage;
      else if (event.type === "timings") timings = event.timings;
      else if (event.type === "finish") {
        process.stdout.write("\n");
        if (event.error !== undefined) throw event.error;
        if (flags.stats === true) {
          const contextLength = await chosenContext(context, route.chain[0]);
          const said = contextLength === undefined ? "" : `, context ${contextLength} tokens`;
          process.stderr.write(`${formatStats(usage, timings, event.reason)}${said}\n`);
        }
      }
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    await context.registry.dispose();
  }
}

/** The context the route's first model got at load (a local model's: auto or context_size). */
async function chosenContext(
  context: HostContext,
  name: string | undefined,
): Promise<number | undefined> {
  try {
    const { engine } = await context.registry.engineFor(name);
    const models = await engine.listModels();
    return models.find((model) => model.contextLength !== undefined)?.contextLength;
  } catch {
    return undefined; // a stats line without it
  }
}

export function formatStats(
  usage: Usage | undefined,
  timings: Timings | undefined,
  reason: string,
): string {
  const parts = [
    `time to first token ${timings?.timeToFirstTokenMs?.toFixed(1) ?? "-"} ms`,
    `${timings?.decodeTokensPerSecond?.toFixed(1) ?? "-"} tokens/s`,
    `prompt ${usage?.inputTokens ?? 0} tokens (${usage?.cachedInputTokens ?? 0} cached${
      usage?.diskCachedInputTokens === undefined ? "" : `, ${usage.diskCachedInputTokens} from disk`
    })`,
    `output ${usage?.outputTokens ?? 0} tokens`,
    `finish ${reason}`,
  ];
  if (timings?.decodeLoop !== undefined) parts.push(`loop ${timings.decodeLoop}`);
  if (timings?.sampling !== undefined) parts.push(`sampling ${timings.sampling}`);
  if (usage?.acceptedPredictionTokens !== undefined) {
    parts.push(
      `prediction ${usage.acceptedPredictionTokens} accepted / ${usage.rejectedPredictionTokens ?? 0} rejected`,
    );
  }
  return `[stats] ${parts.join(", ")}`;
}
