// A pool model (`base_urls`) as an UpstreamPool: one engine per replica and, unless
// health_check_interval_ms is 0, an HTTP probe of each at `{base_url}{health_check_path}`.
import type { OpenAiCompatibleModelConfig } from "../config/config-types.ts";
import type { Engine } from "../engines/engine.ts";
import { httpProbe } from "./replica-health-check.ts";
import { UpstreamPool } from "./upstream-pool.ts";

export function createUpstreamPool(
  model: OpenAiCompatibleModelConfig,
  baseUrls: readonly string[],
  engineAt: (baseUrl: string) => Engine,
  apiKey: string | undefined,
): UpstreamPool {
  const check = model.healthCheck;
  // vLLM and others started with --api-key refuse an unauthenticated GET /v1/models with 401.
  const headers: Record<string, string> =
    apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  return new UpstreamPool(
    baseUrls.map((url) => ({
      name: url,
      engine: engineAt(url),
      ...(check === undefined ? {} : { probe: httpProbe(`${url}${check.path}`, headers) }),
    })),
    check === undefined ? {} : { healthCheck: check },
  );
}
