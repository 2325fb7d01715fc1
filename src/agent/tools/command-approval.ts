// Whether run_command may run a command: only when approval is on for the session, the user asked
// for that command in this turn, or an interactive surface asked the user and got a yes.

export interface CommandApprovalRequest {
  command: string;
  cwd: string;
}

export interface CommandApproval {
  /** Approve every command (`spark exec --allow-commands`). Default false. */
  autoApprove: boolean;
  /** Asks the user (terminal UI, editor); absent in headless runs. */
  ask?: (request: CommandApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

export const DENY_UNLESS_ASKED: CommandApproval = { autoApprove: false };

/**
 * The user asked for a command when their text this turn contains it, or its first two words
 * ("npm test" for "npm test -- --watch=false"). Deliberately literal: "check it works" does not
 * approve `rm -rf build`.
 */
export function userAskedFor(command: string, userText: string): boolean {
  const normalize = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase();
  const wanted = normalize(command);
  const said = normalize(userText.replaceAll("`", " "));
  if (wanted === "") return false;
  if (said.includes(wanted)) return true;
  const words = wanted.split(" ");
  return words.length > 2 && said.includes(words.slice(0, 2).join(" "));
}

export async function isCommandApproved(
  approval: CommandApproval,
  request: CommandApprovalRequest,
  userText: string,
  signal: AbortSignal,
): Promise<boolean> {
  if (approval.autoApprove || userAskedFor(request.command, userText)) return true;
  if (approval.ask === undefined) return false;
  return approval.ask(request, signal);
}
