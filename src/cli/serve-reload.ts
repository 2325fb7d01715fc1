// What `spark serve` re-reads on SIGHUP without a restart: [serve] api_keys and the model table.
// Requests under way finish (a removed key stops only new ones; a removed model's engine is
// disposed after the drain grace period); the log names tenants (hashes), never keys.
import { loadConfig } from "../config/load-config.ts";
import type { ConfigFlags } from "../config/config-types.ts";
import { tenantOf } from "../gateway/access/tenant.ts";
import type { HostContext } from "../host/host-context.ts";
import type { RunningServe } from "./start-serve.ts";

export interface ServeReloadOptions {
  server: Pick<RunningServe, "gateway" | "setApiKeys">;
  context: HostContext;
  /** The flags the server started with (--model, --store, …): they still win over the files. */
  flags: ConfigFlags;
  /** How long a removed model's engine is kept for the responses it is generating. */
  retireAfterMs: number;
}

/** Re-reads the configuration and applies it; resolves with the log's summary. Throws (nothing
 * changed) when the configuration does not load or would leave a public host without keys. */
export async function reloadServe(options: ServeReloadOptions): Promise<string> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: options.flags });
  const before = new Set(options.server.gateway.config.apiKeys);
  const after = new Set(config.serve.apiKeys);
  options.server.setApiKeys([...after]);
  const models = options.context.registry.replaceModels(config, options.retireAfterMs);
  options.context.router.modelsChanged();
  const removedTenants = [...before].filter((key) => !after.has(key)).map((key) => tenantOf(key));
  const addedTenants = [...after].filter((key) => !before.has(key)).map((key) => tenantOf(key));
  return [
    `api_keys: ${after.size} (removed: ${listed(removedTenants)}; added: ${listed(addedTenants)})`,
    `models: removed ${listed(models.removed)}; added ${listed(models.added)}; changed ${listed(models.changed)}`,
    "requests under way finish",
  ].join("; ");
}

function listed(names: readonly string[]): string {
  return names.length === 0 ? "none" : names.join(", ");
}
