// The agent protocol's methods: name, params and result schemas, in one table that the server
// dispatches from and every client (terminal, browser, editor) types its calls with.
import { z } from "zod";
import { approvalDecisionSchema, sessionStatusSchema } from "./session-events.ts";

const sessionIdSchema = z.string().min(1).max(200);
/** A message from the user: capped so one frame cannot hold the server's memory hostage. */
const messageTextSchema = z.string().min(1).max(1_000_000);

export const sessionSummarySchema = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  model: z.string().optional(),
  /** Live sessions run in this server now; others are logs on disk that attach resumes. */
  live: z.boolean(),
  status: sessionStatusSchema,
  /** The first user message, shortened: what a session list shows. */
  title: z.string().optional(),
  startedAt: z.string().optional(),
  /** The session's last sequence number (live sessions only). */
  lastSequence: z.number().int().nonnegative().optional(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** A past exchange, for a client that attaches to a session it has no events for. */
export const historyItemSchema = z.object({
  role: z.enum(["user", "assistant", "tool"]),
  text: z.string(),
});
export type HistoryItem = z.infer<typeof historyItemSchema>;

export const agentMethods = {
  "session/list": {
    params: z.object({}).optional(),
    result: z.object({ sessions: z.array(sessionSummarySchema) }),
  },
  "session/start": {
    params: z.object({
      /** Must be inside one of the server's workspace roots (default: the server's own cwd). */
      cwd: z.string().min(1).max(4096).optional(),
      model: z.string().min(1).max(200).optional(),
    }),
    result: z.object({ session: sessionSummarySchema }),
  },
  "session/attach": {
    params: z.object({
      sessionId: sessionIdSchema,
      /** The last sequence number this client saw: events after it are replayed, none twice. */
      lastSequence: z.number().int().nonnegative().optional(),
    }),
    result: z.object({
      session: sessionSummarySchema,
      /** Events replayed before this result resolves arrive as `session/event` notifications. */
      replayedEvents: z.number().int().nonnegative(),
      /** Set when the session was loaded from its log: the conversation so far, for display. */
      history: z.array(historyItemSchema).optional(),
      /**
       * Set with `history`: the same conversation as the session events its log holds (text
       * deltas joined, tool output shortened), for a client to fold as it folds live events.
       */
      historyEvents: z.array(z.looseObject({ type: z.string() })).optional(),
    }),
  },
  "session/detach": {
    params: z.object({ sessionId: sessionIdSchema }),
    result: z.object({ detached: z.boolean() }),
  },
  "turn/start": {
    params: z.object({
      sessionId: sessionIdSchema,
      text: messageTextSchema,
      /** Use this model from this turn on. */
      model: z.string().min(1).max(200).optional(),
    }),
    result: z.object({ started: z.literal(true) }),
  },
  "turn/steer": {
    params: z.object({ sessionId: sessionIdSchema, text: messageTextSchema }),
    /** `steered`: delivered to the running turn at the next token; `started`: the session was idle. */
    result: z.object({ delivery: z.enum(["steered", "started"]) }),
  },
  "turn/queue": {
    params: z.object({ sessionId: sessionIdSchema, text: messageTextSchema }),
    result: z.object({ delivery: z.enum(["queued", "started"]) }),
  },
  "turn/interrupt": {
    params: z.object({ sessionId: sessionIdSchema }),
    result: z.object({ interrupted: z.boolean() }),
  },
  "edit/undo": {
    params: z.object({ sessionId: sessionIdSchema, force: z.boolean().optional() }),
    result: z.object({
      undoEntryId: z.string(),
      files: z.array(z.object({ path: z.string(), action: z.enum(["restored", "deleted"]) })),
    }),
  },
  "approval/respond": {
    params: z.object({
      sessionId: sessionIdSchema,
      approvalId: z.string().min(1).max(200),
      decision: approvalDecisionSchema,
    }),
    result: z.object({ resolved: z.literal(true) }),
  },
  /** Summarises older turns now, instead of waiting for the context to fill (the TUI's /compact). */
  "session/compact": {
    params: z.object({ sessionId: sessionIdSchema }),
    result: z.object({
      compacted: z.boolean(),
      /** Estimated prompt tokens of the next model call, before and after. */
      tokensBefore: z.number().int().nonnegative().optional(),
      tokensAfter: z.number().int().nonnegative().optional(),
    }),
  },
  "model/list": {
    params: z.object({}).optional(),
    result: z.object({
      models: z.array(z.object({ id: z.string(), engine: z.string().optional() })),
      defaultModel: z.string().optional(),
    }),
  },
  /** The MCP servers this agent server started (`[mcp_servers]`): each one's state and tools. */
  "mcp/list": {
    params: z.object({}).optional(),
    result: z.object({
      servers: z.array(
        z.object({
          name: z.string(),
          state: z.string(),
          /** The server's own tool names (the model sees `<server>__<tool>`). */
          tools: z.array(z.string()),
          error: z.string().optional(),
          failures: z.number().int().nonnegative(),
          retryInMs: z.number().nonnegative().optional(),
        }),
      ),
    }),
  },
  "workspace/files": {
    params: z.object({
      sessionId: sessionIdSchema,
      /** Fuzzy filter on the path (for @-mentions); empty lists from the top. */
      query: z.string().max(500).optional(),
      limit: z.number().int().positive().max(5000).optional(),
    }),
    result: z.object({ files: z.array(z.string()), truncated: z.boolean() }),
  },
} as const;

export type AgentMethodName = keyof typeof agentMethods;
export type AgentMethodParams<Method extends AgentMethodName> = z.input<
  (typeof agentMethods)[Method]["params"]
>;
export type AgentMethodResult<Method extends AgentMethodName> = z.output<
  (typeof agentMethods)[Method]["result"]
>;

export function isAgentMethodName(method: string): method is AgentMethodName {
  return Object.hasOwn(agentMethods, method);
}

/** The WebSocket path `spark serve` answers the agent protocol on. */
export const AGENT_PROTOCOL_PATH = "/v1/agent";
