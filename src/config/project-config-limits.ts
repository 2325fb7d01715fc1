// Keys only the user may set: a project's ./.spark/config.toml comes with whatever repository the
// user cloned, so it must not widen what the agent may touch or who may reach the server.
import { SparkError } from "../protocol/spark-error.ts";
import type { ConfigLayer } from "./config-layer.ts";

interface UserOnlyKey {
  table: "agent" | "serve" | "sandbox" | "mcp" | "cache";
  key: string;
  /** What a hostile repository could do with it. */
  risk: string;
  /** Where the user sets it instead, besides their own config file. */
  alternatives?: string;
}

const USER_ONLY_KEYS: readonly UserOnlyKey[] = [
  {
    table: "agent",
    key: "workspace_roots",
    risk: "widen the folders the agent may read, edit and run commands in",
    alternatives: "`spark serve --workspace-root <dir>`",
  },
  {
    table: "serve",
    key: "host",
    risk: "expose the server beyond this machine",
    alternatives: "SPARK_HOST or --host",
  },
  { table: "serve", key: "api_keys", risk: "choose the keys that unlock your server" },
  {
    table: "serve",
    key: "store",
    risk: "send your conversations (prompts, outputs, stored responses) to a Redis of its choosing",
    alternatives: "SPARK_STORE or --store",
  },
  { table: "sandbox", key: "mode", risk: "turn off the sandbox its own commands run in" },
  { table: "sandbox", key: "network", risk: "let the agent's commands reach the network" },
  { table: "sandbox", key: "env", risk: "pass your secrets (API keys, tokens) to its commands" },
  {
    table: "serve",
    key: "allowed_origins",
    risk: "let web pages on other origins drive your agent",
  },
  {
    table: "serve",
    key: "allowed_hosts",
    risk: "weaken the DNS-rebinding check on the Host header",
  },
  {
    table: "cache",
    key: "directory",
    risk: "have your conversations' cached model state written to, and read from, a folder of its choosing",
  },
  {
    table: "mcp",
    key: "trusted_project_servers",
    risk: "start programs of its choosing as MCP servers without your consent",
  },
];

/** MCP server keys only the user may set: a project's server runs only with the user's consent,
 * and its calls are asked about like commands. */
const USER_ONLY_MCP_SERVER_KEYS = ["auto_approve", "auto_approve_tools"] as const;

/** Model keys only the user may set: where requests go decides who receives the provider key
 * sent with them (a preset's or `api_key_env`'s), and a project's model entry merges into the
 * user's entry of the same name. */
const USER_ONLY_MODEL_KEYS = ["base_url", "base_urls", "api_key_env"] as const;

/** Refuses a project config that sets a user-only key, naming the file, the key and why. */
export function rejectUserOnlyKeys(projectLayer: ConfigLayer, userConfigPath: string): void {
  for (const [name, model] of Object.entries(projectLayer.values.models ?? {})) {
    const key = USER_ONLY_MODEL_KEYS.find(
      (candidate) => (model as Record<string, unknown>)[candidate] !== undefined,
    );
    if (key === undefined) continue;
    throw new SparkError(
      "invalid_config",
      `${projectLayer.source}: models.${name}.${key} cannot be set in a project's config: a ` +
        "repository you cloned could use it to send your provider API key to a server of its " +
        `choosing. Define the model in your own ${userConfigPath} and remove ${key} from this file.`,
    );
  }
  for (const [name, server] of Object.entries(projectLayer.values.mcp_servers ?? {})) {
    const key = USER_ONLY_MCP_SERVER_KEYS.find((candidate) => server[candidate] !== undefined);
    if (key === undefined) continue;
    throw new SparkError(
      "invalid_config",
      `${projectLayer.source}: mcp_servers.${name}.${key} cannot be set in a project's config: a ` +
        "repository you cloned could use it to let the model call that server's tools without " +
        `asking you. Set it in your own ${userConfigPath} and remove it from this file.`,
    );
  }
  for (const { table, key, risk, alternatives } of USER_ONLY_KEYS) {
    const values = projectLayer.values[table] as Record<string, unknown> | undefined;
    if (values?.[key] === undefined) continue;
    const instead = alternatives === undefined ? "" : `, or use ${alternatives}`;
    throw new SparkError(
      "invalid_config",
      `${projectLayer.source}: ${table}.${key} cannot be set in a project's config: a repository ` +
        `you cloned could use it to ${risk}. Set it in your own ${userConfigPath}${instead}, ` +
        `and remove it from this file.`,
    );
  }
}
