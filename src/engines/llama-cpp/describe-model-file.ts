// What a GGUF file holds, from its header alone (no weights loaded): architecture, layers,
// width, quantization and size, so a benchmark or `spark doctor` names the model it really used.
import { stat } from "node:fs/promises";
import { GgufFileType, readGgufFileInfo } from "node-llama-cpp";
import { tensorDataExtent, type TensorDataExtent } from "./gguf/tensor-data-extent.ts";

export interface ModelFileDescription {
  path: string;
  bytes: number;
  name: string | undefined;
  architecture: string | undefined;
  layers: number | undefined;
  embeddingLength: number | undefined;
  /** The file's `general.file_type`, e.g. "F16", "Q8_0"; undefined when the header has none. */
  quantization: string | undefined;
  /** With `tensorData`: where the tensors' data ends, to tell a file cut short. */
  tensorData?: TensorDataExtent;
}

/** One read of the header (and its tensor table, with `tensorData`) and one stat. */
export async function describeModelFile(
  path: string,
  options: { tensorData?: boolean } = {},
): Promise<ModelFileDescription> {
  const readTensorInfo = options.tensorData === true;
  const [info, file] = await Promise.all([
    readGgufFileInfo(path, { readTensorInfo, logWarnings: false }),
    stat(path),
  ]);
  const general = info.metadata.general;
  const architecture = general?.architecture as string | undefined;
  const architectureMetadata =
    architecture === undefined
      ? undefined
      : (info.metadata as unknown as Record<string, Record<string, unknown> | undefined>)[
          architecture
        ];
  const fileType = general?.file_type;
  return {
    path,
    bytes: file.size,
    name: general?.name,
    architecture,
    layers: numberOrUndefined(architectureMetadata?.block_count),
    embeddingLength: numberOrUndefined(architectureMetadata?.embedding_length),
    quantization: fileType === undefined ? undefined : quantizationName(fileType),
    ...(readTensorInfo
      ? { tensorData: tensorDataExtent(info.fullTensorInfo ?? info.tensorInfo ?? [], file.size) }
      : {}),
  };
}

/** "F16", "Q8_0", "Q4_K_M": llama.cpp's names, from node-llama-cpp's enum (`MOSTLY_Q8_0`). */
export function quantizationName(fileType: GgufFileType): string {
  const name = GgufFileType[fileType] as string | undefined;
  if (name === undefined) return `file type ${fileType}`;
  return name.replace(/^(ALL|MOSTLY)_/, "");
}

/** One line: `qwen2, 28 layers × 1536, Q8_0, 1.53 GiB: /path/to/file.gguf`. */
export function formatModelFile(description: ModelFileDescription): string {
  const shape =
    description.layers === undefined
      ? ""
      : `, ${description.layers} layers × ${description.embeddingLength ?? "?"}`;
  const gib = description.bytes / 1024 ** 3;
  const size =
    gib >= 1 ? `${gib.toFixed(2)} GiB` : `${(description.bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${description.architecture ?? "unknown architecture"}${shape}, ${description.quantization ?? "unknown type"}, ${size}: ${description.path}`;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
