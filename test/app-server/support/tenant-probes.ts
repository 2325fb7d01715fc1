// Test helper: what another tenant gets for every agent-protocol method that names a session,
// side by side with what it gets for a random id, so a test can demand they are the same answer.
import { randomBytes } from "node:crypto";
import { checkUpload, composeMessage } from "../../../web/src/state/attachments.ts";
import {
  AgentProtocolError,
  type AgentMethodName,
  type AgentProtocolClient,
} from "../../../src/protocol/agent/index.ts";

/** One answer with the probed ids blanked, so answers for two ids compare as equal or not. */
export type ProbeAnswer =
  | { method: string; result: unknown }
  | { method: string; error: { code: string; rpcCode: number; message: string } };

interface Probe {
  method: AgentMethodName;
  params: (sessionId: string) => Record<string, unknown>;
}

/** An upload as the browser composes it: a file's text inside the user's message. */
function uploadMessage(): string {
  const upload = checkUpload("notes.md", new TextEncoder().encode("# Notes\nKeep it short.\n"));
  if (!upload.ok) throw new Error(upload.reason);
  return composeMessage("Summarise the uploaded notes.", [], [upload.upload]);
}

/** Every method that takes a session id, with params that would act on a session of one's own. */
export function sessionProbes(approvalId: string): Probe[] {
  const text = "Go on.";
  return [
    { method: "session/attach", params: (sessionId) => ({ sessionId }) },
    { method: "session/attach", params: (sessionId) => ({ sessionId, lastSequence: 0 }) },
    { method: "session/detach", params: (sessionId) => ({ sessionId }) },
    { method: "turn/start", params: (sessionId) => ({ sessionId, text }) },
    { method: "turn/start", params: (sessionId) => ({ sessionId, text: uploadMessage() }) },
    { method: "turn/steer", params: (sessionId) => ({ sessionId, text }) },
    { method: "turn/queue", params: (sessionId) => ({ sessionId, text }) },
    { method: "turn/interrupt", params: (sessionId) => ({ sessionId }) },
    { method: "edit/undo", params: (sessionId) => ({ sessionId }) },
    { method: "edit/undo", params: (sessionId) => ({ sessionId, force: true }) },
    {
      method: "approval/respond",
      params: (sessionId) => ({ sessionId, approvalId, decision: "approve" }),
    },
    { method: "session/compact", params: (sessionId) => ({ sessionId }) },
    { method: "workspace/files", params: (sessionId) => ({ sessionId }) },
  ];
}

/** A session id shaped like the server's (8 hex digits) that names no session. */
export function randomSessionId(): string {
  return randomBytes(4).toString("hex");
}

export async function probe(
  client: AgentProtocolClient,
  method: AgentMethodName,
  params: Record<string, unknown>,
  hidden: string[],
): Promise<ProbeAnswer> {
  const blank = (text: string): string =>
    hidden.reduce((blanked, secret) => blanked.replaceAll(secret, "<id>"), text);
  try {
    const result = await client.request(method, params);
    return { method, result: JSON.parse(blank(JSON.stringify(result))) as unknown };
  } catch (error) {
    if (!(error instanceof AgentProtocolError)) throw error;
    return {
      method,
      error: { code: error.code, rpcCode: error.rpcCode, message: blank(error.message) },
    };
  }
}

/**
 * The answers to every probe for `sessionId` and for a fresh random id each time. A test expects
 * the two lists to be equal: a foreign session then reads exactly as one that does not exist.
 */
export async function probeForeignAndRandom(
  client: AgentProtocolClient,
  sessionId: string,
  approvalId: string,
): Promise<{ foreign: ProbeAnswer[]; random: ProbeAnswer[] }> {
  const foreign: ProbeAnswer[] = [];
  const random: ProbeAnswer[] = [];
  for (const { method, params } of sessionProbes(approvalId)) {
    foreign.push(await probe(client, method, params(sessionId), [sessionId]));
    const other = randomSessionId();
    random.push(await probe(client, method, params(other), [other]));
  }
  return { foreign, random };
}
