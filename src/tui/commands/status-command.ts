// /status, as Codex's: the session, its workspace, model and route, the command sandbox and its
// network, the approval policy, the context in use against the window, and the MCP servers' state.
import { errorAction } from "../hooks/use-agent-session.ts";
import { formatTokens } from "../../protocol/transcript/index.ts";
import { describeMcpServerBriefly } from "./mcp-server-words.ts";
import { notice, type SlashCommand, type SlashCommandContext } from "./slash-command.ts";

export const statusCommand: SlashCommand = {
  name: "status",
  description: "session, model, sandbox, approvals, context and MCP servers",
  async run(_args, context) {
    try {
      // The list is the server's view of this session (its workspace and model) and of MCP.
      const [{ sessions }, { servers }] = await Promise.all([
        context.client.request("session/list", {}),
        context.client.request("mcp/list", {}),
      ]);
      const session = sessions.find((candidate) => candidate.sessionId === context.sessionId);
      const { metrics } = context.view;
      const model = context.view.model ?? session?.model ?? "the server's default";
      const rows: Array<[string, string]> = [
        ["Session", context.sessionId],
        ["Workspace", session?.cwd ?? context.cwd ?? "unknown"],
        ["Model", `${model} (${routeText(context)})`],
        ["Sandbox", sandboxText(context)],
        ["Approval", approvalText(context)],
        ["Context", contextText(metrics.contextTokens, metrics.windowTokens)],
      ];
      if (servers.length > 0) {
        const states = servers.map(describeMcpServerBriefly);
        rows.push(["MCP", states.join(", ")]);
      }
      const width = Math.max(...rows.map(([label]) => label.length));
      notice(context, rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n"));
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};

function routeText(context: SlashCommandContext): string {
  const route = context.environment?.route;
  if (route === undefined) return "route unknown";
  return route === "in-process" ? "in this process" : `via ${route}`;
}

function sandboxText(context: SlashCommandContext): string {
  const sandbox = context.environment?.sandbox;
  if (sandbox === undefined) return "chosen by the agent server";
  // The bubblewrap description already says the network; without a sandbox nothing limits it.
  return sandbox.kind === "none"
    ? `${sandbox.description}; network: not limited`
    : sandbox.description;
}

function approvalText(context: SlashCommandContext): string {
  const environment = context.environment;
  if (environment?.allowCommands === undefined) return "chosen by the agent server";
  return environment.allowCommands
    ? "never asks (--allow-commands): every command runs"
    : "asks before a command it cannot judge safe (y once, a this exact command, n deny)";
}

function contextText(used: number | null, window: number | null): string {
  if (used === null) return "no model call yet";
  const share = window === null || window === 0 ? "" : ` (${Math.round((used / window) * 100)}%)`;
  return `${formatTokens(used)} of ${formatTokens(window)} tokens${share}`;
}
