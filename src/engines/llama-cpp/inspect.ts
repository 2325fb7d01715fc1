// The embedded engine's second public face: what `spark doctor`, `spark models` and
// `spark template` read without opening an engine (the model file, its chat format, the llama.cpp
// backend and devices, the native loop, the prefix cache on disk). The engine itself is index.ts.
export * from "./chat-format/chat-format.ts";
export * from "./chat-format/chat-format-notice.ts";
export * from "./chat-format/open-model-chat-format.ts";
export * from "./chat-format/parsed-output-items.ts";
export * from "./describe-model-file.ts";
export * from "./device/cuda-code-for-device.ts";
export * from "./device/cuda-fatbin.ts";
export * from "./device/nvidia-gpus.ts";
export * from "./gguf/tensor-data-extent.ts";
export * from "./llama-backend.ts";
export { checkModelFile, defaultCpuThreads } from "./load-model.ts";
export * from "./native-loop/open-native-loop.ts";
export * from "./prefix-cache/prefix-cache-summary.ts";
export { gpuRefusalPath, readRememberedRefusal } from "./remembered-gpu-refusal.ts";
export { nodeLlamaCppVersion } from "./cache-folder-record.ts";
