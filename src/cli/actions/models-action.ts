// `spark models` (configured models, their engines and chat-format notices, downloaded files)
// and `spark pull` (a resumable GGUF download). commands/models-command.ts loads it lazily.
import type { ModelConfig } from "../../config/config-types.ts";
import { listLocalModels } from "../../models/list-local-models.ts";
import { modelsDirectory } from "../../models/models-directory.ts";
import { parseModelReference } from "../../models/parse-model-reference.ts";
import { pullModel } from "../../models/pull-model.ts";
import { createProgressWriter } from "../../models/progress-writer.ts";
import { formatBytes } from "../../models/render-progress-bar.ts";
import { createHostContext } from "../../host/host-context.ts";

export interface PullFlags {
  sha256?: string;
  force?: boolean;
}

/**
 * A llama-cpp model's chat template checked as the engine checks it at load (no weights read):
 * the line naming the reason and the consequence, or nothing when it runs as intended or the
 * file is not there yet (the engine's own load reports that).
 */
async function chatFormatNoticeOf(name: string, model: ModelConfig): Promise<string | undefined> {
  if (model.engine !== "llama-cpp") return undefined;
  // Only now: node-llama-cpp (~0.5 s to import) is for a configured embedded model's file alone.
  const { chatFormatNotice, openModelChatFormat } =
    await import("../../engines/llama-cpp/inspect.ts");
  try {
    const chat = await openModelChatFormat(model.path, {
      ...(model.chatTemplate === undefined ? {} : { templateFile: model.chatTemplate }),
    });
    return chatFormatNotice(name, {
      fallbackReason: chat.format === undefined ? chat.reason : undefined,
      toolsUnsupportedReason: chat.format === undefined ? undefined : chat.toolsUnsupportedReason,
    });
  } catch {
    return undefined;
  }
}

export async function listModels(flags: { json?: boolean }): Promise<void> {
  const { config, registry } = await createHostContext();
  const configured = await Promise.all(
    registry.entries().map(async (entry) => {
      const notice = await chatFormatNoticeOf(entry.name, entry.model);
      return {
        ...entry,
        target: describeTarget(entry.model),
        ...(notice === undefined ? {} : { notice }),
      };
    }),
  );
  const downloaded = await listLocalModels(config.sparkHome);
  if (flags.json === true) {
    process.stdout.write(JSON.stringify({ models: configured, downloaded }, null, 2) + "\n");
    return;
  }
  if (configured.length === 0)
    process.stdout.write("No models configured (see README: Configuration).\n");
  for (const entry of configured) {
    process.stdout.write(
      `${entry.isDefault ? "*" : " "} ${entry.name}\t${entry.model.engine}\t${entry.target}\n`,
    );
    if (entry.notice !== undefined) process.stdout.write(`    ${entry.notice}\n`);
  }
  process.stdout.write(`\nDownloaded in ${modelsDirectory(config.sparkHome)}:\n`);
  if (downloaded.length === 0) process.stdout.write("  (none)\n");
  for (const file of downloaded)
    process.stdout.write(`  ${file.fileName}\t${formatBytes(file.sizeBytes)}\n`);
}

export async function pullModelCommand(reference: string, flags: PullFlags): Promise<void> {
  const { config } = await createHostContext();
  const parsed = parseModelReference(reference, process.env);
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const writer = createProgressWriter(process.stderr, { label: parsed.fileName });
  const result = await pullModel({
    url: parsed.url,
    destinationDirectory: modelsDirectory(config.sparkHome),
    fileName: parsed.fileName,
    signal: controller.signal,
    onProgress: (progress) => writer.update(progress),
    ...(flags.sha256 === undefined ? {} : { expectedSha256: flags.sha256 }),
    ...(flags.force === true ? { force: true } : {}),
  });
  writer.finish();
  const how = result.alreadyPresent
    ? "already present"
    : result.verified
      ? "sha256 verified"
      : "no checksum published";
  process.stdout.write(`${result.path} (${formatBytes(result.sizeBytes)}, ${how})\n`);
}

function describeTarget(model: ModelConfig): string {
  switch (model.engine) {
    case "llama-cpp":
      return model.path;
    case "openai-compatible":
      return `${model.preset} ${model.baseUrl}${model.model === undefined ? "" : ` ${model.model}`}`;
    case "script":
      return model.path;
    default:
      return model satisfies never;
  }
}
