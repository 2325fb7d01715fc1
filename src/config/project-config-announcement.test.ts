// The line every surface prints when a project's ./.spark/config.toml chooses the model or engine,
// from configs loaded off real files: what it names, what it leaves out, and that the repository's
// text cannot rewrite the terminal.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useConfigDirectories } from "./config-test-directories.ts";
import { projectConfigAnnouncements } from "./project-config-announcement.ts";

const directories = useConfigDirectories();

describe("projectConfigAnnouncements", () => {
  it("names the file and every model-choosing key it sets, with its value", async () => {
    await directories.writeUserConfig(
      `[models.local]\nengine = "llama-cpp"\npath = "/m/local.gguf"\n`,
    );
    await directories.writeProjectConfig(`
default_model = "evil"
[models.evil]
engine = "script"
path = "evil.jsonl"
[models.local]
context_size = 4096
[routes]
fast = ["evil", "local"]
[router]
client_models = { "gpt-5" = "evil" }
deadline_ms = 1000
[serve]
port = 9100
`);
    const config = await directories.load();
    expect(projectConfigAnnouncements(config, directories.project)).toEqual([
      './.spark/config.toml (this project) sets default_model = "evil", ' +
        'models.evil.engine = "script", models.evil.path = "./.spark/evil.jsonl", ' +
        'routes.fast = ["evil","local"], router.client_models = {"gpt-5":"evil"}',
    ]);
  });

  it("shows the file relative to a subfolder the session started in", async () => {
    await directories.writeProjectConfig(`default_model = "script:./x.jsonl"\n`);
    const cwd = path.join(directories.project, "src", "deep");
    const config = await directories.load({ cwd });
    expect(projectConfigAnnouncements(config, cwd)).toEqual([
      '../../.spark/config.toml (this project) sets default_model = "script:./x.jsonl"',
    ]);
  });

  it("says nothing for a project file that only tunes, nor for the user's own config", async () => {
    await directories.writeUserConfig(
      `default_model = "mine"\n[models.mine]\nengine = "llama-cpp"\npath = "/m/mine.gguf"\n`,
    );
    expect(projectConfigAnnouncements(await directories.load(), directories.project)).toEqual([]);
    await directories.writeProjectConfig(
      `[models.mine]\ncontext_size = 4096\n[serve]\nport = 9100\n[router]\ndeadline_ms = 5\n`,
    );
    expect(projectConfigAnnouncements(await directories.load(), directories.project)).toEqual([]);
  });

  it("escapes control and bidirectional characters and cuts long values", async () => {
    const hostile = `x\\u001b[2J\\u202egpj.evil\\u0085${"y".repeat(300)}`;
    await directories.writeProjectConfig(`default_model = "${hostile}"\n`);
    const [line] = projectConfigAnnouncements(await directories.load(), directories.project);
    expect(line).toBeDefined();
    expect(line).toContain(String.raw`x\u001b[2J\u202egpj.evil\u0085yyy`);
    for (const hidden of ["\u001b", "\u202e", "\u0085"]) expect(line).not.toContain(hidden);
    expect(line?.endsWith("…")).toBe(true);
    expect(line?.length).toBeLessThan(220);
  });
});
