// The live controls of one running turn: an AbortController per step (interrupt and steer abort
// it), the steer messages waiting to join the turn, and the queue delivered at step boundaries.
import { randomUUID } from "node:crypto";

export type InterruptReason = "interrupt" | "steer";

export class TurnControl {
  readonly id = randomUUID();
  /** Everything the user wrote in this turn; run_command approvals read it. */
  userText: string;
  private stepController = new AbortController();
  private pendingInterrupt: InterruptReason | undefined;
  private readonly steers: string[] = [];
  private queued: string[] = [];

  constructor(text: string) {
    this.userText = text;
  }

  /** A fresh signal for the next model call and its tools; already aborted if an interrupt is pending. */
  beginStep(): AbortSignal {
    this.stepController = new AbortController();
    if (this.pendingInterrupt !== undefined) this.stepController.abort(this.pendingInterrupt);
    return this.stepController.signal;
  }

  interrupt(): void {
    this.pendingInterrupt = "interrupt";
    this.stepController.abort("interrupt");
  }

  /** Stops the current step; the message joins the turn and the turn goes on. */
  steer(text: string): void {
    this.steers.push(text);
    // The latest action wins: interrupt-then-steer continues, steer-then-interrupt stops.
    this.pendingInterrupt = "steer";
    this.stepController.abort("steer");
  }

  queue(text: string): void {
    this.queued.push(text);
  }

  /** The interrupt that stopped the step, if any, cleared for the next step. */
  takeInterrupt(): InterruptReason | undefined {
    const reason = this.pendingInterrupt;
    this.pendingInterrupt = undefined;
    return reason;
  }

  takeSteers(): string[] {
    return this.steers.splice(0);
  }

  takeQueued(): string[] {
    const queued = this.queued;
    this.queued = [];
    return queued;
  }

  addUserText(text: string): void {
    this.userText = `${this.userText}\n${text}`;
  }
}
