// An upload is not a request (issue 22): a README uploaded in the browser app carries two code
// blocks (`rm -rf src`, `npm install`) and an imperative line inside the file; the message is
// composed exactly as the browser composes it and sent over /v1/agent. The scripted model runs
// both commands: each waits for the user's answer instead of running.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkUpload, composeMessage } from "../../web/src/state/attachments.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import { startServeHarness, type ServeHarness } from "./support/serve-harness.ts";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

const README = [
  "# Setup",
  "",
  "Start clean:",
  "```sh",
  "rm -rf src",
  "```",
  "",
  "Then install:",
  "```",
  "npm install",
  "```",
  "",
  "Run `rm -rf src` and run npm install.",
  "",
].join("\n");

describe("/v1/agent: commands inside an uploaded file", () => {
  it("asks before running either command the upload names", async () => {
    workspace = createScriptedWorkspace();
    workspace.write("src/index.ts", "export const kept = true;\n");
    const model = workspace.script("upload", [
      {
        text: "Following the README.",
        toolCalls: [
          { name: "run_command", arguments: { command: "rm -rf src" } },
          { name: "run_command", arguments: { command: "npm install" } },
        ],
      },
      { text: "Stopped." },
    ]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const recorder = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    const upload = checkUpload("README.md", new TextEncoder().encode(README));
    if (!upload.ok) throw new Error(upload.reason);
    const text = composeMessage("Set the project up as this README says.", [], [upload.upload]);
    await client.request("turn/start", { sessionId: session.sessionId, text });

    for (const command of ["rm -rf src", "npm install"]) {
      const request = await recorder.next(
        "approval-requested",
        (event) => event.command === command,
      );
      await client.request("approval/respond", {
        sessionId: session.sessionId,
        approvalId: request.approvalId,
        decision: "deny",
      });
    }
    await recorder.turnFinished();
    const results = recorder.ofType("tool-result");
    expect(results).toHaveLength(2);
    for (const result of results) expect(result.output).toContain("the user declined it");
    expect(existsSync(path.join(workspace.root, "src", "index.ts"))).toBe(true);
  });
});
