// `[cache]` as the engine and `spark doctor` read it: whether the prefix cache is on, its folder
// (cache/ under SPARK_HOME unless set) and its cap.
import path from "node:path";
import { DEFAULT_CACHE_MAX_BYTES } from "./config-schema.ts";
import type { LoadedConfig } from "./config-types.ts";

export interface CacheSettings {
  enabled: boolean;
  directory: string;
  maxBytes: number;
}

export function cacheSettings(config: Pick<LoadedConfig, "cache" | "sparkHome">): CacheSettings {
  return {
    enabled: config.cache?.enabled ?? true,
    directory: config.cache?.directory ?? path.join(config.sparkHome, "cache"),
    maxBytes: config.cache?.maxBytes ?? DEFAULT_CACHE_MAX_BYTES,
  };
}
