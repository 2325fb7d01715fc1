// The OpenAI-compatible engine's light face: what the config, the router and the agent's HTTP
// client read without loading the engine (index.ts): the provider presets, the token estimate,
// the SSE parser.
export { openAICompatiblePresets } from "./presets.ts";
export { estimateInputTokens } from "./estimate-usage.ts";
export { SseParser } from "./sse-parser.ts";
