// The TOML shape (snake_case) in two schemas: a layer schema every file, variable and flag is
// checked against on its own (so an error names its source), and the merged schema with defaults.
import { z } from "zod";
import { GPU_BACKENDS, MODEL_ENGINES, PROVIDER_PRESETS } from "./config-types.ts";

const positiveInteger = z.int().positive();
const nonNegativeInteger = z.int().nonnegative();
const nonEmptyString = z.string().min(1);

const gpuSchema = z.union([z.literal(false), z.enum(GPU_BACKENDS)], {
  error: `expected one of ${[...GPU_BACKENDS, false].map((value) => JSON.stringify(value)).join(" | ")}`,
});

const httpUrl = z.url({
  protocol: /^https?$/,
  error: "expected an http(s) URL such as http://127.0.0.1:8000/v1",
});

const environmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" });

/** Names appear in `--model`, `/v1/models` and model ids on the wire, so keep them plain. */
export const modelNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, {
  error: "model names use letters, digits and . _ : / - (starting with a letter or digit)",
});

/** One model entry in one layer: every field optional, so a project file can tweak one key. */
const modelLayerSchema = z.strictObject({
  engine: z.enum(MODEL_ENGINES).optional(),
  path: nonEmptyString.optional(),
  context_size: positiveInteger.optional(),
  threads: positiveInteger.optional(),
  gpu: gpuSchema.optional(),
  sequences: positiveInteger.optional(),
  speculative: z.boolean().optional(),
  preset: z.enum(PROVIDER_PRESETS).optional(),
  base_url: httpUrl.optional(),
  model: nonEmptyString.optional(),
  api_key_env: environmentVariableName.optional(),
});

const serveFields = {
  host: nonEmptyString,
  port: z.int().min(0).max(65535),
  api_keys: z.array(nonEmptyString),
  allowed_origins: z.array(nonEmptyString),
  max_concurrency_per_key: positiveInteger,
  connection_lifetime_seconds: positiveInteger,
  resume_grace_seconds: nonNegativeInteger,
  max_frame_bytes: positiveInteger,
  context_limit_tokens: positiveInteger,
};

const agentFields = {
  /** Directories agent sessions served by `spark serve` may work in. */
  workspace_roots: z.array(nonEmptyString),
};

export const configLayerSchema = z.strictObject({
  default_model: nonEmptyString.optional(),
  models: z.record(modelNameSchema, modelLayerSchema).optional(),
  serve: z.strictObject(serveFields).partial().optional(),
  agent: z.strictObject(agentFields).partial().optional(),
});

export type ConfigLayerValues = z.infer<typeof configLayerSchema>;
export type ModelLayerValues = z.infer<typeof modelLayerSchema>;

const llamaCppModelSchema = z.strictObject({
  engine: z.literal("llama-cpp"),
  path: z.string({ error: "required: the .gguf file to load" }),
  context_size: positiveInteger.default(8192),
  threads: positiveInteger.optional(),
  gpu: gpuSchema.default("auto"),
  sequences: positiveInteger.default(4),
  speculative: z.boolean().default(false),
});

const openAiCompatibleModelSchema = z
  .strictObject({
    engine: z.literal("openai-compatible"),
    preset: z.enum(PROVIDER_PRESETS).optional(),
    base_url: httpUrl.optional(),
    model: nonEmptyString.optional(),
    api_key_env: environmentVariableName.optional(),
    context_size: positiveInteger.optional(),
  })
  .superRefine((model, context) => {
    if (model.base_url !== undefined) return;
    if (model.preset === undefined || model.preset === "custom") {
      context.addIssue({
        code: "custom",
        path: ["base_url"],
        message:
          model.preset === "custom"
            ? 'required when preset = "custom"'
            : 'required unless a preset is set (e.g. preset = "cerebras")',
      });
    }
  });

const scriptModelSchema = z.strictObject({
  engine: z.literal("script"),
  path: z.string({ error: "required: the JSONL script to replay" }),
});

export const mergedConfigSchema = z.strictObject({
  default_model: nonEmptyString.optional(),
  models: z
    .record(
      modelNameSchema,
      z.discriminatedUnion("engine", [
        llamaCppModelSchema,
        openAiCompatibleModelSchema,
        scriptModelSchema,
      ]),
    )
    .default({}),
  serve: z
    .strictObject({
      host: serveFields.host.default("127.0.0.1"),
      port: serveFields.port.default(7777),
      api_keys: serveFields.api_keys.default([]),
      allowed_origins: serveFields.allowed_origins.default([]),
      max_concurrency_per_key: serveFields.max_concurrency_per_key.default(4),
      connection_lifetime_seconds: serveFields.connection_lifetime_seconds.default(3600),
      resume_grace_seconds: serveFields.resume_grace_seconds.default(30),
      max_frame_bytes: serveFields.max_frame_bytes.default(1024 * 1024),
      context_limit_tokens: serveFields.context_limit_tokens.default(131072),
    })
    .prefault({}),
  agent: z.strictObject({ workspace_roots: agentFields.workspace_roots.default([]) }).prefault({}),
});

export type MergedConfigValues = z.infer<typeof mergedConfigSchema>;
