// The model families the chat-format tests cover: the fourteen of issue 33's table, Hermes-2-Pro,
// Functionary, and the reasoning families coding users run that llama-server's tests cover
// (DeepSeek R1 distills, GLM-4.7-Flash, Ministral 3 / Devstral 2, Granite 4.1, Nemotron), each as
// llama.cpp's real template and a test vocabulary close to the family's, with the call id format
// the family's template expects; and the checks that fail for a reason outside the test.
export interface ChatFamily {
  name: string;
  template: string;
  /** models/ggml-vocab-<vocab>.gguf */
  vocab: string;
  bosToken?: string;
  eosToken: string;
  /** Ids the family's format carries (Kimi's functions.name:index, Mistral's 9 characters). */
  callId: (name: string, index: number) => string;
  /** Tokens the model stops on: generation ends at the first, which never reaches the parser. */
  endOfTurn: string[];
  /** The template prints arguments as a string (Functionary): a Hugging Face user passes text. */
  stringArguments?: boolean;
  /**
   * Why the parse check's call follows the user's turn instead of a past call and its result: the
   * template cannot render a second call turn as the model writes one.
   */
  callInFirstTurn?: string;
  /** The template takes reasoning as a `thinking` content block (Mistral's), not a field. */
  thinkingBlocks?: boolean;
}

const openAiIds = (_name: string, index: number): string => `call_${index + 1}`;

export const chatFamilies: ChatFamily[] = [
  {
    name: "Qwen2.5",
    template: "Qwen-Qwen2.5-7B-Instruct.jinja",
    vocab: "qwen2",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Qwen3",
    template: "Qwen-Qwen3-0.6B.jinja",
    vocab: "qwen2",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Qwen3-Coder",
    template: "Qwen3-Coder.jinja",
    vocab: "qwen2",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Qwen3.5",
    template: "Qwen3.5-4B.jinja",
    vocab: "qwen35",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "gpt-oss",
    template: "openai-gpt-oss-120b.jinja",
    vocab: "gpt-2",
    eosToken: "<|return|>",
    callId: openAiIds,
    endOfTurn: ["<|call|>", "<|return|>"],
  },
  {
    name: "Devstral 2507",
    template: "unsloth-mistral-Devstral-Small-2507.jinja",
    vocab: "llama-spm",
    bosToken: "<s>",
    eosToken: "</s>",
    callId: (_name, index) => `abcdef12${index}`,
    endOfTurn: ["</s>"],
  },
  {
    name: "Mistral Small 3.2",
    template: "Mistral-Small-3.2-24B-Instruct-2506.jinja",
    vocab: "llama-spm",
    bosToken: "<s>",
    eosToken: "</s>",
    callId: (_name, index) => `abcdef12${index}`,
    endOfTurn: ["</s>"],
  },
  {
    name: "Granite 4.0",
    template: "ibm-granite-granite-4.0.jinja",
    vocab: "gpt-2",
    eosToken: "<|end_of_text|>",
    callId: openAiIds,
    endOfTurn: ["<|end_of_text|>"],
  },
  {
    name: "GLM-4.6",
    template: "GLM-4.6.jinja",
    vocab: "gpt-2",
    eosToken: "<|endoftext|>",
    callId: openAiIds,
    endOfTurn: ["<|user|>", "<|observation|>", "<|endoftext|>"],
  },
  {
    name: "MiniMax-M2",
    template: "MiniMax-M2.jinja",
    vocab: "gpt-2",
    eosToken: "[e~[",
    callId: openAiIds,
    endOfTurn: ["[e~["],
  },
  {
    name: "Llama 3.1",
    template: "meta-llama-Llama-3.1-8B-Instruct.jinja",
    vocab: "llama-bpe",
    bosToken: "<|begin_of_text|>",
    eosToken: "<|eot_id|>",
    callId: openAiIds,
    endOfTurn: ["<|eot_id|>", "<|eom_id|>"],
  },
  {
    name: "Llama 3.3",
    template: "meta-llama-Llama-3.3-70B-Instruct.jinja",
    vocab: "llama-bpe",
    bosToken: "<|begin_of_text|>",
    eosToken: "<|eot_id|>",
    callId: openAiIds,
    endOfTurn: ["<|eot_id|>", "<|eom_id|>"],
  },
  {
    name: "Gemma 4",
    template: "google-gemma-4-31B-it.jinja",
    vocab: "gemma-4",
    bosToken: "<bos>",
    eosToken: "<turn|>",
    callId: openAiIds,
    endOfTurn: ["<turn|>", "<eos>"],
  },
  {
    name: "DeepSeek V3.1",
    template: "deepseek-ai-DeepSeek-V3.1.jinja",
    vocab: "deepseek-llm",
    bosToken: "<｜begin▁of▁sentence｜>",
    eosToken: "<｜end▁of▁sentence｜>",
    callId: openAiIds,
    endOfTurn: ["<｜end▁of▁sentence｜>"],
  },
  {
    name: "Kimi-K2",
    template: "Kimi-K2-Instruct.jinja",
    vocab: "gpt-2",
    eosToken: "<|im_end|>",
    callId: (name, index) => `functions.${name}:${index}`,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Kimi-K2 (newer template)",
    template: "moonshotai-Kimi-K2.jinja",
    vocab: "gpt-2",
    eosToken: "<|im_end|>",
    callId: (name, index) => `functions.${name}:${index}`,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Hermes-2-Pro",
    template: "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
    vocab: "llama-bpe",
    bosToken: "<|begin_of_text|>",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Functionary v3.2",
    template: "meetkai-functionary-medium-v3.2.jinja",
    vocab: "llama-bpe",
    bosToken: "<|begin_of_text|>",
    eosToken: "<|eot_id|>",
    callId: openAiIds,
    endOfTurn: ["<|eot_id|>"],
    stringArguments: true,
  },
  {
    name: "DeepSeek R1 Distill (Qwen)",
    template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    vocab: "qwen2",
    bosToken: "<｜begin▁of▁sentence｜>",
    eosToken: "<｜end▁of▁sentence｜>",
    callId: openAiIds,
    endOfTurn: ["<｜end▁of▁sentence｜>"],
    callInFirstTurn:
      "the template sets ns.is_first once for the whole conversation, so a later call turn loses " +
      "<｜Assistant｜><｜tool▁calls▁begin｜> (DeepSeek's published template)",
  },
  {
    name: "GLM-4.7-Flash",
    template: "GLM-4.7-Flash.jinja",
    vocab: "gpt-2",
    eosToken: "<|endoftext|>",
    callId: openAiIds,
    endOfTurn: ["<|user|>", "<|observation|>", "<|endoftext|>"],
  },
  {
    name: "Ministral 3 Reasoning / Devstral 2",
    template: "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
    vocab: "llama-spm",
    bosToken: "<s>",
    eosToken: "</s>",
    callId: openAiIds,
    endOfTurn: ["</s>"],
    thinkingBlocks: true,
  },
  {
    name: "Granite 4.1",
    template: "ibm-granite-granite-4.1.jinja",
    vocab: "gpt-2",
    eosToken: "<|end_of_text|>",
    callId: openAiIds,
    endOfTurn: ["<|end_of_text|>"],
  },
  {
    name: "Nemotron 3 Nano",
    template: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
    vocab: "gpt-2",
    eosToken: "<|im_end|>",
    callId: openAiIds,
    endOfTurn: ["<|im_end|>"],
  },
  {
    name: "Nemotron Nano v2",
    template: "NVIDIA-Nemotron-Nano-v2.jinja",
    vocab: "gpt-2",
    eosToken: "<SPECIAL_12>",
    callId: openAiIds,
    endOfTurn: ["<SPECIAL_12>"],
  },
];

export type ChatFamilyCheck = "render" | "parse" | "reasoning";

/**
 * A check that fails for a reason outside the test (llama.cpp's own code as node-llama-cpp bundles
 * it): the test still runs it and requires it to fail with `seen`, so a fix (a newer bundle) shows
 * up as a failure asking to remove the entry, and a different failure is not hidden behind it.
 */
export interface ChatFamilyGap {
  /** Why, precisely enough to report upstream. */
  reason: string;
  /** Part of the error the check fails with. */
  seen: string;
}

export const chatFamilyGaps: Record<string, Partial<Record<ChatFamilyCheck, ChatFamilyGap>>> = {
  "Mistral Small 3.2": {
    parse: {
      reason:
        "llama.cpp's auto-parser (chat-diff-analyzer.cpp, extract_function_markers) derives the call " +
        "as [TOOL_CALLS]name[ARGS][CALL_ID]id[ARGS]{…} instead of [TOOL_CALLS]name[CALL_ID]id[ARGS]{…} " +
        "whenever the EOS token's text is marker-like (</s>, as every Mistral GGUF has): the template " +
        "ends the turn with it, so the diff's suffix has a marker after the JSON and the TAG_WITH_JSON " +
        "branch extends func_name_suffix with [ARGS]; llama.cpp's own test passes only because it " +
        "renders with an empty EOS. llama-server shows the same on a real GGUF",
      seen: "does not match the expected peg-native format",
    },
  },
};
