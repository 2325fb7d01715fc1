// `spark exec`'s turn: the host, the model, the sandbox, MCP servers and the agent session, run on
// one instruction and streamed for people or as JSONL. commands/exec-command.ts loads it lazily.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { AgentSession, type AgentSessionOptions } from "../../agent/agent-session.ts";
import type { AgentEvent } from "../../agent/agent-events.ts";
import { GatewayModelClient } from "../../agent/model-client/gateway-model-client.ts";
import { describeMcpStatus, McpServerManager } from "../../agent/mcp/index.ts";
import { createHumanEventWriter } from "../../agent/render/human-event-writer.ts";
import type { CommandSandbox } from "../../agent/sandbox/command-sandbox.ts";
import { resolveCommandSandbox } from "../../agent/sandbox/resolve-command-sandbox.ts";
import { findSession, sessionsDirectory } from "../../agent/session-store/session-directory.ts";
import { DEFAULT_TOOLS, ToolRegistry } from "../../agent/tools/tool-registry.ts";
import type { TurnEndReason } from "../../agent/agent-events.ts";
import { projectConfigAnnouncements } from "../../config/project-config-announcement.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { createHostContext, type HostContext } from "../../host/host-context.ts";
import {
  isScriptModel,
  openAgentModel,
  type OpenedAgentModel,
} from "../../host/open-agent-model.ts";
import { parsePositiveInteger, UsageError } from "../usage-error.ts";

import { EXIT_ERROR, EXIT_INTERRUPTED, EXIT_SUCCESS, EXIT_USAGE } from "../exit-codes.ts";

export interface ExecFlags {
  model?: string;
  server?: string;
  json?: boolean;
  resume?: string;
  allowCommands?: boolean;
  allowNetwork?: boolean;
  maxSteps?: string;
  cwd?: string;
}

export async function runExec(instruction: string, flags: ExecFlags): Promise<number> {
  const write =
    flags.json === true ? jsonWriter() : createHumanEventWriter(process.stdout, process.stderr);
  let setup: Awaited<ReturnType<typeof prepare>>;
  try {
    setup = await prepare(instruction, flags);
  } catch (error) {
    const usage = error instanceof UsageError || isUsageSparkError(error);
    const sparkError = SparkError.from(error, "invalid_request");
    process.stderr.write(
      `spark exec: ${error instanceof Error ? error.message : String(error)}${usage ? "" : ` [${sparkError.code}]`}\n`,
    );
    return usage ? EXIT_USAGE : EXIT_ERROR;
  }
  const { session, resumed, cleanup, mcp } = setup;
  session.subscribe(write);
  session.announce(resumed);
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts += 1;
    // The first Ctrl-C stops the turn (and its tools) cleanly; a second one does not wait.
    if (interrupts === 1) session.interrupt();
    else process.exit(EXIT_INTERRUPTED);
  };
  process.on("SIGINT", onInterrupt);
  try {
    await mcp.requiredReady();
    const result = await session.submit(instruction);
    return exitCodeFor(result.reason);
  } catch (error) {
    const sparkError = SparkError.from(error);
    process.stderr.write(`spark exec: ${sparkError.message} [${sparkError.code}]\n`);
    return EXIT_ERROR;
  } finally {
    process.off("SIGINT", onInterrupt);
    await session.close();
    await cleanup();
  }
}

function exitCodeFor(reason: TurnEndReason): number {
  switch (reason) {
    case "completed":
      return EXIT_SUCCESS;
    case "interrupted":
      return EXIT_INTERRUPTED;
    case "error":
    case "max_steps":
      return EXIT_ERROR;
    default:
      reason satisfies never;
      return EXIT_ERROR;
  }
}

async function prepare(instruction: string, flags: ExecFlags) {
  if (instruction.trim() === "") throw new UsageError("the instruction is empty.");
  const maxSteps = parsePositiveInteger("--max-steps", flags.maxSteps);
  const invokedIn = process.cwd();
  if (flags.cwd !== undefined) {
    const cwd = path.resolve(flags.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory())
      throw new UsageError(`--cwd ${flags.cwd} is not a directory.`);
    // Project config (./.spark/config.toml) and relative paths then follow the repository.
    process.chdir(cwd);
  }
  const isScript = isScriptModel(flags.model);
  // A gateway or a script resolves --model itself; only local models go through the config.
  const localModel = isScript || flags.server !== undefined ? undefined : flags.model;
  const context = await createHostContext(localModel === undefined ? {} : { model: localModel });
  // Before the first turn, on stderr (stdout may be --json): a repository's own config chose this.
  for (const line of projectConfigAnnouncements(context.config, process.cwd()))
    process.stderr.write(`spark: ${line}\n`);
  const sessions = sessionsDirectory(context.config.sparkHome);
  let resumeFrom: string | undefined;
  if (flags.resume !== undefined) resumeFrom = (await findSession(sessions, flags.resume)).path;
  const model = await openModel(context, flags, invokedIn);
  const commandSandbox = await resolveCommandSandbox(context.config.sandbox, {
    allowNetwork: flags.allowNetwork === true,
  });
  if (commandSandbox.kind === "none") warnNoSandbox(commandSandbox, flags.allowCommands === true);
  // Started in the background: the turn begins now, and each server's tools join when it is ready.
  const mcp = new McpServerManager(Object.values(context.config.mcpServers ?? {}));
  mcp.subscribe((status) => process.stderr.write(`spark: ${describeMcpStatus(status)}\n`));
  mcp.start();
  const options: AgentSessionOptions = {
    client: model.client,
    workspaceRoot: process.cwd(),
    sessionsDirectory: sessions,
    ...(model.name === undefined ? {} : { model: model.name }),
    commandApproval: { autoApprove: flags.allowCommands === true },
    commandSandbox,
    registry: new ToolRegistry(DEFAULT_TOOLS, [mcp]),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(model.contextWindowTokens === undefined
      ? {}
      : { contextWindowTokens: model.contextWindowTokens }),
  };
  const session =
    resumeFrom === undefined
      ? await AgentSession.create(options)
      : await AgentSession.resume(resumeFrom, options);
  return {
    session,
    resumed: resumeFrom !== undefined,
    mcp,
    cleanup: async () => {
      await mcp.close();
      await model.client.close();
      await model.ownedEngine?.dispose();
      await context.registry.dispose();
    },
  };
}

/** Only without a sandbox: with one, stderr stays as quiet as before. */
function warnNoSandbox(sandbox: CommandSandbox, allowCommands: boolean): void {
  const consequence = allowCommands
    ? "--allow-commands runs every command with your full access"
    : "every command outside the read-only list needs approval";
  process.stderr.write(
    `spark: no sandbox for commands (${sandbox.reason ?? "unknown"}); ${consequence}\n`,
  );
}

/** `invokedIn`: the directory spark was started in (a script path is relative to it, not --cwd). */
async function openModel(
  context: HostContext,
  flags: ExecFlags,
  invokedIn: string,
): Promise<OpenedAgentModel> {
  const modelFlag = flags.model;
  if (flags.server !== undefined && !isScriptModel(modelFlag)) {
    const apiKey = process.env.SPARK_API_KEY?.trim();
    const client = new GatewayModelClient({
      url: flags.server,
      ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
    });
    return { name: modelFlag, client };
  }
  return openAgentModel(context, isScriptModel(modelFlag) ? modelFlag : undefined, invokedIn);
}

/** Errors that mean the command line named something that is not there. */
function isUsageSparkError(error: unknown): boolean {
  return (
    error instanceof SparkError &&
    (error.code === "invalid_config" ||
      error.code === "model_not_found" ||
      error.code === "invalid_request")
  );
}

function jsonWriter(): (event: AgentEvent) => void {
  return (event) => {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  };
}
