// Whether run_command may run a command: approval is on for the session, an interactive surface
// asked the user about the whole command and got a yes (or "always" for that exact command), the
// command is on the read-only list, or the user asked for exactly that plain command to be run.
// A read-only git command runs with the repository's code-running config neutralised.
import type { McpToolName } from "../../protocol/agent/session-events.ts";
import { neutralGitCommand } from "./neutral-git-command.ts";
import { parseShellCommand, quoteShellWords } from "./parse-shell-command.ts";
import { readOnlyCommandProblem } from "./read-only-commands.ts";
import { checkCommandRequest } from "./requested-commands.ts";

export interface CommandApprovalRequest {
  /** The whole command, exactly as it will run. */
  command: string;
  cwd: string;
  /** Why the user's words did not approve it, for the surface to show beside the command. */
  reason?: string;
  /** What an "always" answer approves from then on: this exact command when absent; an MCP
   * tool's name (`mcp:<server>__<tool>`) so every later call of that tool runs unasked. */
  alwaysKey?: string;
  /** Set for an MCP tool call, so a surface words the question as a call, not a command. */
  mcpTool?: McpToolName;
}

export interface CommandApproval {
  /** Approve every command (`spark exec --allow-commands`). Default false. */
  autoApprove: boolean;
  /** Asks the user (terminal UI, editor); absent in headless runs. */
  ask?: (request: CommandApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

export const DENY_UNLESS_ASKED: CommandApproval = { autoApprove: false };

export interface CommandDecisionOptions {
  /** Whether the command will run inside the sandbox; without one, only read-only commands run unasked. */
  sandboxed: boolean;
  /** Variables the command's environment passes beyond the allow-list (`[sandbox] env`). */
  passEnvironment?: readonly string[];
}

export type CommandRequestJudgement =
  /**
   * `shellCommand` runs the parsed words, each quoted, so the shell expands nothing;
   * `readOnlyWords` is set when the read-only list let it run.
   */
  | { asked: true; shellCommand: string; readOnlyWords?: string[] }
  | { asked: false; reason: string };

/**
 * Runs without asking: one simple command (no substitution, expansion, redirection, chaining,
 * pipe, subshell, glob or assignment) that is either on the read-only list with paths inside the
 * workspace, or that the user asked for in an imperative sentence naming exactly its words
 * ("run npm test", "please run `cargo build`"). Extra arguments are not asked for:
 * `npm test -- --watch` needs approval after "run npm test". Without a sandbox, only the
 * read-only list runs unasked.
 */
export function judgeCommandRequest(
  command: string,
  userText: string,
  location: { cwd: string; workspaceRoot: string },
  options: CommandDecisionOptions,
): CommandRequestJudgement {
  const parsed = parseShellCommand(command);
  if (parsed.kind === "complex") {
    return {
      asked: false,
      reason: `it uses ${parsed.feature}, so only explicit approval of the whole command can run it`,
    };
  }
  const shellCommand = quoteShellWords(parsed.words);
  const readOnlyProblem = readOnlyCommandProblem(
    parsed.words,
    location.cwd,
    location.workspaceRoot,
  );
  if (readOnlyProblem === undefined) {
    return { asked: true, shellCommand, readOnlyWords: parsed.words };
  }
  const request = checkCommandRequest(parsed.words, userText);
  if (!request.requested) {
    // A program on the list with an option off it: say which, so the user sees why it asks.
    const onTheList = !readOnlyProblem.endsWith("is not on the read-only list");
    return {
      asked: false,
      reason: onTheList ? `${request.reason}, and ${readOnlyProblem}` : request.reason,
    };
  }
  if (!options.sandboxed) {
    return {
      asked: false,
      reason:
        "commands run without a sandbox here, so every command outside the read-only list needs the user's approval",
    };
  }
  return { asked: true, shellCommand };
}

export type CommandDecision =
  { approved: true; shellCommand: string } | { approved: false; reason: string };

export async function decideCommand(
  approval: CommandApproval,
  request: CommandApprovalRequest,
  userText: string,
  signal: AbortSignal,
  options: CommandDecisionOptions,
): Promise<CommandDecision> {
  // Approved as a whole (by flag or by the user), the command runs exactly as written.
  if (approval.autoApprove) return { approved: true, shellCommand: request.command };
  const judgement = judgeCommandRequest(
    request.command,
    userText,
    { cwd: request.cwd, workspaceRoot: request.cwd },
    options,
  );
  let reason: string;
  if (judgement.asked && judgement.readOnlyWords?.[0] === "git") {
    const neutral = await neutralGitCommand(
      judgement.readOnlyWords,
      request.cwd,
      options.passEnvironment ?? [],
      signal,
    );
    if (neutral.ok) return { approved: true, shellCommand: quoteShellWords(neutral.words) };
    reason = neutral.reason;
  } else if (judgement.asked) {
    return { approved: true, shellCommand: judgement.shellCommand };
  } else {
    reason = judgement.reason;
  }
  if (approval.ask === undefined) return { approved: false, reason };
  const yes = await approval.ask({ ...request, reason }, signal);
  return yes
    ? { approved: true, shellCommand: request.command }
    : { approved: false, reason: "the user declined it" };
}

/**
 * An MCP tool call goes through the same path as a command the user did not ask for: approved
 * for the session by the flag, else asked on an interactive surface, else refused with `reason`.
 */
export async function decideToolCall(
  approval: CommandApproval,
  request: CommandApprovalRequest & { reason: string },
  signal: AbortSignal,
): Promise<{ approved: true } | { approved: false; reason: string }> {
  if (approval.autoApprove) return { approved: true };
  if (approval.ask === undefined) return { approved: false, reason: request.reason };
  return (await approval.ask(request, signal))
    ? { approved: true }
    : { approved: false, reason: "the user declined it" };
}
