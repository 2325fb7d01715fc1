// Whether run_command may run a command: only when approval is on for the session, an interactive
// surface asked the user about the whole command and got a yes, or the user's own words this turn
// name exactly that one plain command (parsed, not prefix-matched) and do not say not to run it.
import { findCommandMentions } from "./find-command-mentions.ts";
import { parseShellCommand, quoteShellWords } from "./parse-shell-command.ts";

export interface CommandApprovalRequest {
  /** The whole command, exactly as it will run. */
  command: string;
  cwd: string;
  /** Why the user's words did not approve it, for the surface to show beside the command. */
  reason?: string;
}

export interface CommandApproval {
  /** Approve every command (`spark exec --allow-commands`). Default false. */
  autoApprove: boolean;
  /** Asks the user (terminal UI, editor); absent in headless runs. */
  ask?: (request: CommandApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

export const DENY_UNLESS_ASKED: CommandApproval = { autoApprove: false };

export type CommandRequestJudgement =
  /** `shellCommand` runs the parsed words, each quoted, so the shell expands nothing. */
  { asked: true; shellCommand: string } | { asked: false; reason: string };

/**
 * Asked for means: one simple command (no substitution, expansion, redirection, chaining, pipe,
 * subshell, glob or assignment), whose program and arguments are exactly words the user wrote
 * ("run npm test", "`npm test`"), with no mention under a negation ("never run npm test").
 * Extra arguments are not asked for: `npm test -- --watch` needs approval after "run npm test".
 */
export function judgeCommandRequest(command: string, userText: string): CommandRequestJudgement {
  const parsed = parseShellCommand(command);
  if (parsed.kind === "complex") {
    return {
      asked: false,
      reason: `it uses ${parsed.feature}, so only explicit approval of the whole command can run it`,
    };
  }
  const mentions = findCommandMentions(parsed.words, userText);
  if (mentions.some((mention) => mention.negated)) {
    return { asked: false, reason: "the user said not to run it" };
  }
  if (mentions.length === 0) {
    return { asked: false, reason: "the user did not ask for exactly this command in this turn" };
  }
  return { asked: true, shellCommand: quoteShellWords(parsed.words) };
}

export function userAskedFor(command: string, userText: string): boolean {
  return judgeCommandRequest(command, userText).asked;
}

export type CommandDecision =
  { approved: true; shellCommand: string } | { approved: false; reason: string };

export async function decideCommand(
  approval: CommandApproval,
  request: CommandApprovalRequest,
  userText: string,
  signal: AbortSignal,
): Promise<CommandDecision> {
  // Approved as a whole (by flag or by the user), the command runs exactly as written.
  if (approval.autoApprove) return { approved: true, shellCommand: request.command };
  const judgement = judgeCommandRequest(request.command, userText);
  if (judgement.asked) return { approved: true, shellCommand: judgement.shellCommand };
  if (approval.ask === undefined) return { approved: false, reason: judgement.reason };
  const yes = await approval.ask({ ...request, reason: judgement.reason }, signal);
  return yes
    ? { approved: true, shellCommand: request.command }
    : { approved: false, reason: "the user declined it" };
}
