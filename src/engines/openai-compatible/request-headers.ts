// The headers every request to the upstream carries: auth, content negotiation, and the user's own.
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";

export function requestHeaders(
  options: Pick<ResolvedOpenAICompatibleOptions, "apiKey" | "headers">,
  accept: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    accept,
    "user-agent": "spark-openai-compatible",
    ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    ...options.headers,
  };
}
