// Asks a session's attached clients before run_command runs a command the user did not ask for:
// the whole command goes out as `approval-requested`, and any client's `approval/respond` settles it.
import { randomUUID } from "node:crypto";
import type { CommandApproval, CommandApprovalRequest } from "../agent/approval/command-approval.ts";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import type { ApprovalDecision, ServerSessionEvent } from "../protocol/agent/session-events.ts";

interface PendingApproval {
  /** What "always" approves: the command, or an MCP tool's key (CommandApprovalRequest). */
  alwaysKey: string;
  settle: (decision: ApprovalDecision) => void;
}

export interface ApprovalBrokerOptions {
  emit: (event: ServerSessionEvent) => void;
  /** The running turn's id, stamped on the request so a client can place it. */
  currentTurnId: () => string | undefined;
  /** Called when the first approval starts waiting and when the last one is settled. */
  onWaitingChange: (waiting: boolean) => void;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, PendingApproval>();
  /** Commands (or MCP tools) approved with "always": exactly these keys, for the session. */
  private readonly alwaysApproved = new Set<string>();

  constructor(private readonly options: ApprovalBrokerOptions) {}

  get isWaiting(): boolean {
    return this.pending.size > 0;
  }

  /** What AgentSession's run_command consults. */
  commandApproval(): CommandApproval {
    return { autoApprove: false, ask: (request, signal) => this.ask(request, signal) };
  }

  ask(request: CommandApprovalRequest, signal: AbortSignal): Promise<boolean> {
    const alwaysKey = request.alwaysKey ?? request.command;
    if (this.alwaysApproved.has(alwaysKey)) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    const approvalId = randomUUID();
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => this.settle(approvalId, "cancelled");
      const approval: PendingApproval = {
        alwaysKey,
        settle: (decision) => {
          signal.removeEventListener("abort", onAbort);
          resolve(decision !== "deny");
        },
      };
      this.pending.set(approvalId, approval);
      // An interrupt (or a steer) aborts the step: the question is withdrawn, the command not run.
      signal.addEventListener("abort", onAbort, { once: true });
      const turnId = this.options.currentTurnId();
      this.options.emit({
        type: "approval-requested",
        approvalId,
        ...(turnId === undefined ? {} : { turnId }),
        command: request.command,
        cwd: request.cwd,
        ...(request.mcpTool === undefined ? {} : { mcpTool: request.mcpTool }),
      });
      if (this.pending.size === 1) this.options.onWaitingChange(true);
    });
  }

  /** A client's answer; unknown or already settled approvals are `approval_not_found`. */
  respond(approvalId: string, decision: ApprovalDecision): void {
    if (!this.pending.has(approvalId)) {
      throw new AgentProtocolError(
        "approval_not_found",
        `No pending approval ${approvalId}: it was already answered or its turn was interrupted.`,
      );
    }
    this.settle(approvalId, decision);
  }

  private settle(approvalId: string, decision: ApprovalDecision | "cancelled"): void {
    const approval = this.pending.get(approvalId);
    if (approval === undefined) return;
    this.pending.delete(approvalId);
    if (decision === "always") this.alwaysApproved.add(approval.alwaysKey);
    this.options.emit({ type: "approval-resolved", approvalId, decision });
    approval.settle(decision === "cancelled" ? "deny" : decision);
    if (this.pending.size === 0) this.options.onWaitingChange(false);
  }
}
