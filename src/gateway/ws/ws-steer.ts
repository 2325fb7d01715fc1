// Steering events as OpenAI's WebSocket mode shapes them: the input check, the acknowledgement
// (response.steer.accepted), the refusal that hands the input back (response.steer.failed), and
// the input left queued while its response waits for tool output (response.steer.pending).
import { randomBytes } from "node:crypto";
import type {
  RequiredInputStub,
  ResponseObject,
  ResponseSteerAcceptedEvent,
  ResponseSteerFailedEvent,
  ResponseSteerPendingEvent,
  SteerFailureCode,
} from "../../protocol/responses-events.ts";
import { inputSchema, type ResponseInput } from "../../protocol/responses-requests.ts";

/** Steers queued on one response before it stops; more are refused (too_many_pending_steers). */
export const MAX_PENDING_STEERS = 8;

/** The steering input when it is usable: a nonempty string or a nonempty list of input items. */
export function parseSteerInput(input: unknown): ResponseInput | undefined {
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success || parsed.data.length === 0) return undefined;
  return parsed.data;
}

export function newSteerId(): string {
  return `steer_${randomBytes(16).toString("hex")}`;
}

export function steerAccepted(
  id: string,
  previousResponseId: string,
  sequenceNumber: number,
): ResponseSteerAcceptedEvent {
  return {
    type: "response.steer.accepted",
    sequence_number: sequenceNumber,
    steer: { id, previous_response_id: previousResponseId },
  };
}

export function steerPending(
  id: string,
  previousResponseId: string,
  requiredInput: RequiredInputStub[],
): ResponseSteerPendingEvent {
  return {
    type: "response.steer.pending",
    sequence_number: 0,
    steer: { id, previous_response_id: previousResponseId },
    reason: "waiting_for_required_input",
    required_input: requiredInput,
  };
}

/** The outputs a completed response waits for: one stub per client-owned call it made. */
export function requiredInputOf(response: ResponseObject): RequiredInputStub[] {
  if (response.status !== "completed") return [];
  const stubs: RequiredInputStub[] = [];
  for (const item of response.output) {
    if (item.type === "function_call")
      stubs.push({ type: "function_call_output", call_id: item.call_id });
    if (item.type === "custom_tool_call") {
      stubs.push({ type: "custom_tool_call_output", call_id: item.call_id });
    }
  }
  return stubs;
}

export function steerFailed(
  code: SteerFailureCode,
  target: string | undefined,
  input: unknown,
  sequenceNumber: number,
): ResponseSteerFailedEvent {
  return {
    type: "response.steer.failed",
    sequence_number: sequenceNumber,
    steer: { previous_response_id: target ?? null, input },
    error: { code, message: steerFailureMessage(code, target) },
  };
}

function steerFailureMessage(code: SteerFailureCode, target: string | undefined): string {
  switch (code) {
    case "response_not_found":
      return target === undefined
        ? "No response is in progress on this connection to steer; send response.create with this input."
        : `Response '${target}' is not in progress on this connection (nor the last one finished on it); send response.create with previous_response_id instead.`;
    case "too_many_pending_steers":
      return `At most ${MAX_PENDING_STEERS} steers can wait on one response; wait for its successor's response.created.`;
    case "invalid_input":
      return "Steering input must be a nonempty string or a nonempty list of input items (messages).";
    default:
      code satisfies never;
      return "Steering failed.";
  }
}
