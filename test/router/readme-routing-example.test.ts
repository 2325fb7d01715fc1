// The routing page's example is real (docs/routing.md): it loads through loadConfig, and the router
// makes the decisions the page describes from it (no upstream is contacted: deciding creates no
// engine).
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.ts";
import { ModelRegistry } from "../../src/router/model-registry.ts";
import { Router } from "../../src/router/router.ts";

function readmeRoutingExample(): string {
  const page = readFileSync(new URL("../../docs/routing.md", import.meta.url), "utf8");
  const match = /```toml\n([\s\S]*?)```/.exec(page);
  if (match?.[1] === undefined) throw new Error("docs/routing.md has no TOML example");
  return match[1];
}

it("the routing page's example loads and routes as documented", async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), "spark-readme-"));
  try {
    await writeFile(path.join(home, "config.toml"), readmeRoutingExample());
    const config = await loadConfig({ cwd: home, env: { SPARK_HOME: home }, homeDirectory: home });
    expect(config.models.codex).toMatchObject({ model: "gpt-5.3-codex", api: "responses" });
    expect(config.models.spark).toMatchObject({
      baseUrl: "http://10.0.0.1:8000/v1",
      baseUrls: ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"],
    });
    const registry = new ModelRegistry({
      config,
      createEngine: () => Promise.reject(new Error("deciding must not create engines")),
    });
    const router = new Router({ registry, config: config.router });
    const decide = (model: string | undefined, text: string) =>
      router.decide(model, { messages: [{ role: "user", content: text }] });
    expect(decide(undefined, "Harden the password reset flow")).toMatchObject({
      route: "deep",
      chain: ["codex"],
      reason: 'auto → deep: security-sensitive work: mentions "password"',
    });
    expect(decide("auto", "bump node in .github/workflows/ci.yml").reason).toBe(
      "auto → deep: touches infrastructure: touches .github/workflows/ci.yml",
    );
    expect(decide("auto", "rename x to y")).toMatchObject({
      route: "fast",
      chain: ["spark", "spark-cloud", "codex"],
    });
    expect(decide("gpt-5.1-codex", "anything").reason).toBe(
      "gpt-5.1-codex is mapped to fast; route fast → spark → spark-cloud → codex (requested)",
    );
    expect(decide("auto", "x".repeat(700)).reason).toBe("auto → deep: no auto rule matched");
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
