// Merges layers key by key (later wins) and remembers which source set each key, so a problem
// found only after merging (a llama-cpp model with no path) still names the file to fix.
import type { ConfigLayer } from "./config-layer.ts";
import type { ModelLayerValues } from "./config-schema.ts";

export interface MergedConfigLayers {
  values: {
    preset?: string;
    default_model?: string;
    models: Record<string, ModelLayerValues>;
    serve: Record<string, unknown>;
    agent: Record<string, unknown>;
    sandbox: Record<string, unknown>;
    cache: Record<string, unknown>;
    routes: Record<string, unknown>;
    router: Record<string, unknown>;
    mcp_servers: Record<string, unknown>;
    mcp: Record<string, unknown>;
  };
  /** Source that last set a key path; look up with `sourceOf`. */
  provenance: Map<string, string>;
}

export function mergeConfigLayers(layers: readonly ConfigLayer[]): MergedConfigLayers {
  const merged: MergedConfigLayers = {
    values: {
      models: {},
      serve: {},
      agent: {},
      sandbox: {},
      cache: {},
      routes: {},
      router: {},
      mcp_servers: {},
      mcp: {},
    },
    provenance: new Map(),
  };
  const mark = (path: string[], source: string): void => {
    merged.provenance.set(pathKey(path), source);
  };
  for (const { source, values } of layers) {
    if (values.preset !== undefined) {
      merged.values.preset = values.preset;
      mark(["preset"], source);
    }
    if (values.default_model !== undefined) {
      merged.values.default_model = values.default_model;
      mark(["default_model"], source);
    }
    for (const [key, value] of Object.entries(values.serve ?? {})) {
      if (value === undefined) continue;
      merged.values.serve[key] = value;
      mark(["serve", key], source);
    }
    for (const [key, value] of Object.entries(values.agent ?? {})) {
      if (value === undefined) continue;
      merged.values.agent[key] = value;
      mark(["agent", key], source);
    }
    for (const [key, value] of Object.entries(values.sandbox ?? {})) {
      if (value === undefined) continue;
      merged.values.sandbox[key] = value;
      mark(["sandbox", key], source);
    }
    for (const [key, value] of Object.entries(values.cache ?? {})) {
      if (value === undefined) continue;
      merged.values.cache[key] = value;
      mark(["cache", key], source);
    }
    // An alias, a rule list or a client-model map is replaced whole; retry and breaker settings
    // merge key by key like [serve].
    for (const [name, targets] of Object.entries(values.routes ?? {})) {
      merged.values.routes[name] = targets;
      mark(["routes", name], source);
    }
    // A server is replaced whole: a project's entry must not keep the user's command under its
    // own arguments, nor inherit the user's auto_approve.
    for (const [name, server] of Object.entries(values.mcp_servers ?? {})) {
      forgetUnder(merged.provenance, ["mcp_servers", name]);
      merged.values.mcp_servers[name] = server;
      mark(["mcp_servers", name], source);
    }
    for (const [key, value] of Object.entries(values.mcp ?? {})) {
      if (value === undefined) continue;
      merged.values.mcp[key] = value;
      mark(["mcp", key], source);
    }
    for (const [key, value] of Object.entries(values.router ?? {})) {
      if (value === undefined) continue;
      const existing = merged.values.router[key];
      const nested = key === "retry" || key === "breaker";
      merged.values.router[key] =
        nested && isPlainObject(existing) && isPlainObject(value)
          ? { ...existing, ...definedOnly(value) }
          : value;
      mark(["router", key], source);
    }
    for (const [name, model] of Object.entries(values.models ?? {})) {
      const existing = merged.values.models[name];
      // Switching engines replaces the entry: a llama-cpp `path` means nothing to a provider.
      const replace =
        existing === undefined ||
        (model.engine !== undefined &&
          existing.engine !== undefined &&
          model.engine !== existing.engine);
      if (replace) forgetUnder(merged.provenance, ["models", name]);
      merged.values.models[name] = replace ? { ...model } : { ...existing, ...definedOnly(model) };
      mark(["models", name], source);
      for (const [key, value] of Object.entries(model)) {
        if (value !== undefined) mark(["models", name, key], source);
      }
    }
  }
  return merged;
}

/** The source that set the longest known prefix of `path`, if any layer did. */
export function sourceOf(
  provenance: Map<string, string>,
  path: readonly PropertyKey[],
): string | undefined {
  for (let length = path.length; length > 0; length -= 1) {
    const source = provenance.get(pathKey(path.slice(0, length).map(String)));
    if (source !== undefined) return source;
  }
  return undefined;
}

function pathKey(path: readonly string[]): string {
  return path.join("\u0000");
}

function forgetUnder(provenance: Map<string, string>, path: string[]): void {
  const prefix = pathKey(path);
  for (const key of [...provenance.keys()]) {
    if (key === prefix || key.startsWith(`${prefix}\u0000`)) provenance.delete(key);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
