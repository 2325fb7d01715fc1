// The app server's agent sessions on `spark serve` (/v1/agent over real WebSockets, two API keys)
// and the prefix cache on disk: after a restart (a new registry, so a new engine with nothing in
// memory) key A's new session loads the system prompt, tools and first message from A's entries;
// key B sending the same first message loads nothing of A's, and answers the same.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Usage } from "../../src/engines/engine.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { BUGGY_FILE, FIXED_FILE, ensurePatchingModel } from "../support/patching-agent-script.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import type { ModelRegistry } from "../../src/router/model-registry.ts";
import { startServeHarness, type ServeHarness } from "./support/serve-harness.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;
const KEY_A = "prefix-cache-tenant-a";
const KEY_B = "prefix-cache-tenant-b";
const MESSAGE = "Fix the bug in src/add.ts.";

let workspace: ScriptedWorkspace | undefined;
let harness: ServeHarness | undefined;
/** The running server's models: disposed with it, as `spark serve` does on exit. */
let registry: ModelRegistry | undefined;

async function stopServer(): Promise<void> {
  await harness?.close();
  // The engine's dispose waits for the entries still being written.
  await registry?.dispose();
  harness = undefined;
  registry = undefined;
}

afterEach(async () => {
  await stopServer();
  workspace?.remove();
});

interface TurnSeen {
  usage: Usage;
  text: string;
}

/** One new session's first turn for `apiKey`: the file is buggy again before it. */
async function firstTurn(server: ServeHarness, apiKey: string): Promise<TurnSeen> {
  workspace?.write("src/add.ts", BUGGY_FILE);
  const client = await server.connect(apiKey);
  const recorder = new EventRecorder(client);
  const { session } = await client.request("session/start", { cwd: workspace?.root ?? "" });
  await client.request("turn/start", { sessionId: session.sessionId, text: MESSAGE });
  await recorder.turnFinished();
  expect(workspace?.read("src/add.ts")).toBe(FIXED_FILE);
  const [finished] = recorder.ofType("turn-finished");
  if (finished === undefined) throw new Error("the turn did not finish");
  const text = recorder
    .ofType("text-delta")
    .map((event) => event.text)
    .join("");
  return { usage: finished.usage, text };
}

/** `spark serve`'s wiring on a fresh registry: the model loads again, with an empty memory. */
async function startServer(): Promise<ServeHarness> {
  if (workspace === undefined) throw new Error("no workspace");
  const context = await workspace.context();
  registry = context.registry;
  const opened = { ...workspace, context: () => Promise.resolve(context) };
  harness = await startServeHarness(opened, "coder", [workspace.root], [KEY_A, KEY_B]);
  return harness;
}

async function restart(): Promise<ServeHarness> {
  await stopServer();
  return startServer();
}

describe.skipIf(!ready)("agent sessions per tenant and the prefix cache on disk", () => {
  it(
    "A's new session after a restart starts from A's entries; B's gets none of them",
    { timeout: 300_000 },
    async () => {
      workspace = createScriptedWorkspace();
      const modelPath = await ensurePatchingModel("Qwen3-Coder", "micro");
      writeFileSync(
        path.join(workspace.sparkHome, "config.toml"),
        `[models.coder]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
          "threads = 1\nsequences = 1\n",
      );
      const cold = await firstTurn(await startServer(), KEY_A);
      expect(cold.usage.diskCachedInputTokens).toBeUndefined();

      let server = await restart();
      // B first, on an engine whose memory holds nothing: only A's entries on disk could serve it.
      const foreign = await firstTurn(server, KEY_B);
      server = await restart();
      const warm = await firstTurn(server, KEY_A);
      const computed = (usage: Usage): number => usage.inputTokens - usage.cachedInputTokens;
      console.log(
        `app server: ${warm.usage.inputTokens} prompt tokens over the turn's 3 steps; A after a ` +
          `restart: ${String(warm.usage.diskCachedInputTokens)} from disk, ${computed(warm.usage)} ` +
          `computed; first run: ${computed(cold.usage)} computed; B: ` +
          `${String(foreign.usage.diskCachedInputTokens)} from disk, ${computed(foreign.usage)} computed`,
      );
      expect(warm.text).toBe(cold.text);
      expect(foreign.text).toBe(cold.text);
      expect(warm.usage.inputTokens).toBe(cold.usage.inputTokens);
      // The first step's whole prompt came from disk; the later steps continue it in memory.
      expect(warm.usage.diskCachedInputTokens).toBeGreaterThan(0.5 * (warm.usage.inputTokens / 3));
      expect(computed(warm.usage)).toBeLessThan(computed(cold.usage) / 3);
      expect(foreign.usage.diskCachedInputTokens).toBeUndefined();
      expect(computed(foreign.usage)).toBe(computed(cold.usage));
    },
  );
});
