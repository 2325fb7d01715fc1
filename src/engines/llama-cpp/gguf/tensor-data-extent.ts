// Whether a GGUF file holds all of its tensor data: the header of a file cut short (an interrupted
// download) still reads, and node-llama-cpp reads past its end as zeros, so only the tensors'
// offsets and sizes against the file's length tell. Sizes come from ggml's block layouts.
import type { GgufTensorInfo } from "node-llama-cpp";

/** ggml type id → [values per block, bytes per block] (ggml's type traits). */
const blockLayouts: ReadonlyMap<number, readonly [number, number]> = new Map([
  [0, [1, 4]], // F32
  [1, [1, 2]], // F16
  [2, [32, 18]], // Q4_0
  [3, [32, 20]], // Q4_1
  [6, [32, 22]], // Q5_0
  [7, [32, 24]], // Q5_1
  [8, [32, 34]], // Q8_0
  [9, [32, 36]], // Q8_1
  [10, [256, 84]], // Q2_K
  [11, [256, 110]], // Q3_K
  [12, [256, 144]], // Q4_K
  [13, [256, 176]], // Q5_K
  [14, [256, 210]], // Q6_K
  [15, [256, 292]], // Q8_K
  [16, [256, 66]], // IQ2_XXS
  [17, [256, 74]], // IQ2_XS
  [18, [256, 98]], // IQ3_XXS
  [19, [256, 50]], // IQ1_S
  [20, [32, 18]], // IQ4_NL
  [21, [256, 110]], // IQ3_S
  [22, [256, 82]], // IQ2_S
  [23, [256, 136]], // IQ4_XS
  [24, [1, 1]], // I8
  [25, [1, 2]], // I16
  [26, [1, 4]], // I32
  [27, [1, 8]], // I64
  [28, [1, 8]], // F64
  [29, [256, 56]], // IQ1_M
  [30, [1, 2]], // BF16
  [34, [256, 54]], // TQ1_0
  [35, [256, 66]], // TQ2_0
  [39, [32, 17]], // MXFP4
]);

export interface TensorDataExtent {
  fileBytes: number;
  /** Where the last tensor's data ends (or, for a type not in the table, begins). */
  requiredBytes: number;
  tensorCount: number;
}

/** Where the tensors' data ends, against the file's length. */
export function tensorDataExtent(
  tensors: readonly GgufTensorInfo[],
  fileBytes: number,
): TensorDataExtent {
  let requiredBytes = 0;
  for (const tensor of tensors) {
    const start = Number(tensor.fileOffset);
    const layout = blockLayouts.get(tensor.ggmlType);
    const values = tensor.dimensions.reduce<number>((product, size) => product * Number(size), 1);
    const bytes = layout === undefined ? 1 : Math.ceil(values / layout[0]) * layout[1];
    requiredBytes = Math.max(requiredBytes, start + bytes);
  }
  return { fileBytes, requiredBytes, tensorCount: tensors.length };
}

/** Why the file cannot be a whole model, or undefined when its tensors all fit in it. */
export function describeTruncation(extent: TensorDataExtent): string | undefined {
  if (extent.tensorCount === 0) {
    return `its header lists no tensors (${extent.fileBytes} bytes): the file is cut short or not a model`;
  }
  if (extent.requiredBytes > extent.fileBytes) {
    return (
      `it is cut short: its tensors need ${extent.requiredBytes} bytes but the file has ` +
      `${extent.fileBytes} (an interrupted download?)`
    );
  }
  return undefined;
}
