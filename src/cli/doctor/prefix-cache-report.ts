// `spark doctor`'s prefix-cache lines: on or off, where, its size against the cap, its entries and
// the hit rate of the processes that used it.
import { cacheSettings, type CacheSettings } from "../../config/cache-settings.ts";
import type { LoadedConfig } from "../../config/config-types.ts";
import {
  summarizePrefixCache,
  type PrefixCacheSummary,
} from "../../engines/llama-cpp/inspect.ts";
import { formatBytes } from "../../models/render-progress-bar.ts";

export type PrefixCacheReport = CacheSettings & Partial<PrefixCacheSummary>;

export async function prefixCacheReport(config: LoadedConfig): Promise<PrefixCacheReport> {
  const settings = cacheSettings(config);
  if (!settings.enabled) return settings;
  return { ...settings, ...(await summarizePrefixCache(settings.directory)) };
}

export function formatPrefixCache(report: PrefixCacheReport): string[] {
  if (!report.enabled) return ["prefix cache: off ([cache] enabled = false)"];
  const lines = [
    `prefix cache: ${report.directory}, ${formatBytes(report.bytes ?? 0)} of ${formatBytes(report.maxBytes)} in ${report.entries ?? 0} entries`,
  ];
  const counters = report.counters;
  if (counters !== undefined && report.hitRate !== null && report.hitRate !== undefined) {
    lines.push(
      `  hit rate ${(report.hitRate * 100).toFixed(0)}% (${counters.hits} of ${counters.lookups} lookups), ${counters.tokensLoaded} prompt tokens loaded instead of computed`,
    );
  }
  return lines;
}
