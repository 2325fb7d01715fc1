// Which Spark model a Messages request's `model` reaches. Claude Code asks for Anthropic's names
// (claude-sonnet-…, and claude-haiku-… for titles and other small jobs), which change with every
// release: a name the gateway serves (a configured model, a route such as `fast` or `deep`, or a
// `[router] client_models` entry) goes as it is; any other `claude-*` name goes to the default
// model, as `local` does. Other unknown names stay unknown (404 not_found_error).
import type { GatewayModels } from "../../gateway-models.ts";
import { WireError } from "../../wire/wire-error.ts";

export const ANTHROPIC_MODEL_PREFIX = "claude-";

/** The name to route (undefined: the default model). */
export async function sparkModelFor(
  models: GatewayModels,
  requested: string,
): Promise<string | undefined> {
  if (!requested.startsWith(ANTHROPIC_MODEL_PREFIX)) return requested;
  return (await isServed(models, requested)) ? requested : undefined;
}

/** count_tokens routes nothing, but answers an unknown model with the 404 create would give. */
export async function requireServedModel(models: GatewayModels, requested: string): Promise<void> {
  const model = await sparkModelFor(models, requested);
  if (model === undefined || (await isServed(models, model))) return;
  throw new WireError(
    "model_not_found",
    `The model '${requested}' is not served here; GET /v1/models lists the models.`,
    { param: "model" },
  );
}

/** The listing names configured models, routes and client_models entries; asking the router
 * itself would count a routing decision for a request it does not route. */
async function isServed(models: GatewayModels, name: string): Promise<boolean> {
  const served = await models.list();
  return served.some((model) => model.id === name);
}
