// /init, as Codex's: asks the agent, with a fixed prompt, to study the repository and write an
// AGENTS.md of its build and test commands and conventions. An existing AGENTS.md is rewritten
// only when the user picks that (it may hold what no one can recover from the code).
import { errorAction } from "../hooks/use-agent-session.ts";
import { notice, type SlashCommand, type SlashCommandContext } from "./slash-command.ts";

export const INIT_PROMPT = `Create a file named AGENTS.md at the root of this workspace: a short guide for coding agents and new contributors working in this repository.

First look at the repository: its README, package or build files (package.json, Makefile, Cargo.toml, pyproject.toml, go.mod and the like), CI configuration, test folders and a few representative source files. Then write AGENTS.md in Markdown, under 400 lines, with these sections where they apply:
- Project structure: the main folders and what each holds.
- Build, test and development commands: the exact commands to install, build, run, test (all tests and a single test), lint, format and typecheck, as they appear in the repository.
- Coding style and naming conventions: language settings, formatter and linter, file and identifier naming, patterns the code follows.
- Testing guidelines: the framework, where tests live and how they are named, what a change is expected to test.
- Commit and pull request conventions, if the history or docs show any.

Write only what the repository shows; do not invent commands. Write only AGENTS.md and change no other file.`;

export const initCommand: SlashCommand = {
  name: "init",
  description: "write an AGENTS.md for this workspace (the agent studies the repository)",
  async run(_args, context) {
    try {
      if (await hasAgentsFile(context)) {
        context.pick({
          title: "AGENTS.md exists. Have the agent write it again?",
          options: [
            { value: "keep", label: "Keep it", detail: "nothing is sent" },
            { value: "rewrite", label: "Rewrite it", detail: "the agent replaces AGENTS.md" },
          ],
          onPick: async (choice) => {
            if (choice === "rewrite") await startInit(context, true);
            else notice(context, "AGENTS.md kept as it is.");
          },
        });
        return;
      }
      await startInit(context, false);
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};

/** Asks the server, so it holds for a workspace on a remote `spark serve` too. */
async function hasAgentsFile(context: SlashCommandContext): Promise<boolean> {
  const { files } = await context.client.request("workspace/files", {
    sessionId: context.sessionId,
    query: "AGENTS.md",
    limit: 200,
  });
  return files.includes("AGENTS.md");
}

async function startInit(context: SlashCommandContext, replacing: boolean): Promise<void> {
  try {
    const text = replacing
      ? `${INIT_PROMPT}\n\nAGENTS.md already exists: read it first, keep what is still true, and replace it.`
      : INIT_PROMPT;
    await context.client.request("turn/start", { sessionId: context.sessionId, text });
  } catch (error) {
    context.dispatch(errorAction(error));
  }
}
