// `spark` with no command: checks for a terminal, connects (in-process or --server), starts or
// joins a session, and runs the Ink app until /quit or a second Ctrl+C.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { render } from "ink";
import { isScriptModel, resolveScriptModel } from "../host/open-agent-model.ts";
import { describeFailedMatch, matchSessionId } from "../protocol/agent/match-session-id.ts";
import { removeEmptySession } from "../agent/session-store/remove-empty-session.ts";
import { sessionsDirectory } from "../agent/session-store/session-directory.ts";
import { createHostContext } from "../host/host-context.ts";
import { resolveCommandSandbox } from "../agent/sandbox/resolve-command-sandbox.ts";
import { projectConfigAnnouncements } from "../config/project-config-announcement.ts";
import type { AgentProtocolClient } from "../protocol/agent/agent-protocol-client.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { App } from "./app.tsx";
import type { AgentEnvironment } from "./commands/agent-environment.ts";
import { connectInProcess, connectRemote, type AgentConnection } from "./connect-agent.ts";
import type { TypeAhead } from "./type-ahead.ts";

export interface TuiFlags {
  model?: string;
  server?: string;
  session?: string;
  cwd?: string;
  allowCommands?: boolean;
}

export const EXIT_USAGE = 2;

export const NOT_A_TERMINAL_MESSAGE =
  'spark: the terminal UI needs a terminal (stdin and stdout are not a TTY); for scripts and pipes use `spark exec "<instruction>"`.\n';

export async function runTui(flags: TuiFlags, typeAhead?: TypeAhead): Promise<number> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    process.stderr.write(NOT_A_TERMINAL_MESSAGE);
    return EXIT_USAGE;
  }
  // A script path is relative to where spark was started, not to --cwd.
  const model = resolveScriptModel(flags.model, process.cwd());
  if (flags.cwd !== undefined && flags.server === undefined) {
    const cwd = path.resolve(flags.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
      process.stderr.write(`spark: --cwd ${flags.cwd} is not a directory.\n`);
      return EXIT_USAGE;
    }
    // Project config (./.spark/config.toml) then follows the repository.
    process.chdir(cwd);
  }
  const { connection, startupNotices, sessionsFolder, environment } = await connect(flags, model);
  /** Every session this UI showed: those left without a message are not kept (in process). */
  const shown = new Set<string>();
  let quitSessionId: string | undefined;
  try {
    const sessionId = await openSession(connection.client, flags, model);
    shown.add(sessionId);
    // What was typed while loading is the prompt's first input.
    typeAhead?.handOver();
    const instance = render(
      <App
        client={connection.client}
        sessionId={sessionId}
        route={connection.route}
        environment={environment ?? { route: connection.route }}
        cwd={flags.server === undefined ? process.cwd() : undefined}
        startupNotices={startupNotices}
        onSwitch={(next) => shown.add(next)}
        onQuit={(current) => {
          quitSessionId = current;
        }}
      />,
      { exitOnCtrlC: false },
    );
    connection.client.onClose((info) => {
      if (flags.server === undefined) return;
      instance.unmount(
        new SparkError(
          "network_error",
          `The agent server closed the connection${info.reason ? `: ${info.reason}` : ""}.`,
        ),
      );
    });
    await instance.waitUntilExit();
  } finally {
    await connection.close();
  }
  const removed = new Set<string>();
  if (sessionsFolder !== undefined)
    for (const id of shown) if (await removeEmptySession(sessionsFolder, id)) removed.add(id);
  if (quitSessionId !== undefined && !removed.has(quitSessionId))
    process.stdout.write(resumeHint(quitSessionId, flags.server));
  return 0;
}

/** The last line spark leaves: how to come back to the session (its log keeps it). */
export function resumeHint(sessionId: string, server: string | undefined): string {
  const serverFlag = server === undefined ? "" : ` --server ${server}`;
  return `\nResume this session with: spark${serverFlag} --session ${sessionId}\n`;
}

/** The connection, and what the loaded config makes worth saying before the first turn. */
async function connect(
  flags: TuiFlags,
  model: string | undefined,
): Promise<{
  connection: AgentConnection;
  startupNotices: string[];
  /** In process: where its sessions are saved. */
  sessionsFolder?: string;
  /** In process: the sandbox and approvals its sessions get, for /status. */
  environment?: AgentEnvironment;
}> {
  if (flags.server !== undefined) {
    const apiKey = process.env.SPARK_API_KEY?.trim();
    // The server read its own config and logged what a project's file chose there.
    const connection = await connectRemote(flags.server, apiKey === "" ? undefined : apiKey);
    return { connection, startupNotices: [] };
  }
  // A script resolves itself; only a local model name or path goes through the config.
  const context = await createHostContext(
    model === undefined || isScriptModel(model) ? {} : { model },
  );
  const connection = await connectInProcess({
    context,
    workspaceRoot: process.cwd(),
    model,
    allowCommands: flags.allowCommands === true,
  });
  // The session's own session-started reaches the client before the UI listens, so the
  // missing sandbox is said here (detection is cached: this is the sandbox the session got).
  const commandSandbox = await resolveCommandSandbox(context.config.sandbox);
  const sandboxNotice =
    commandSandbox.kind === "none" ? [`command sandbox: ${commandSandbox.description}`] : [];
  return {
    connection,
    sessionsFolder: sessionsDirectory(context.config.sparkHome),
    environment: {
      route: connection.route,
      sandbox: {
        kind: commandSandbox.kind,
        description: commandSandbox.description,
        network: commandSandbox.network,
      },
      allowCommands: flags.allowCommands === true,
    },
    startupNotices: [
      ...projectConfigAnnouncements(context.config, process.cwd()),
      ...sandboxNotice,
    ],
  };
}

/** --session: an id or id prefix to join; otherwise a new session here. */
async function openSession(
  client: AgentProtocolClient,
  flags: TuiFlags,
  model: string | undefined,
): Promise<string> {
  if (flags.session !== undefined) {
    const wanted = flags.session;
    const { sessions } = await client.request("session/list", {});
    const match = matchSessionId(sessions, wanted, (session) => session.sessionId);
    if ("session" in match) return match.session.sessionId;
    const problem = describeFailedMatch(wanted, match.candidates);
    throw new SparkError("invalid_request", `${problem} \`spark sessions\` lists them.`);
  }
  if (flags.server === undefined) {
    // In-process, the app server's default model is already --model and its root is this cwd.
    return (await client.request("session/start", { cwd: process.cwd() })).session.sessionId;
  }
  // On a server, --cwd names a directory there (inside its workspace roots).
  const { session } = await client.request("session/start", {
    ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
    ...(model === undefined ? {} : { model }),
  });
  return session.sessionId;
}
