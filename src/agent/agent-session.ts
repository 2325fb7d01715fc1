// The agent as every surface uses it: submit a message, steer or queue while a turn runs,
// interrupt, undo the last edit, and listen to one typed event stream. Each session is logged
// to its JSONL file as events happen, and can be resumed from it.
import { realpathSync } from "node:fs";
import type { SamplingOptions, ToolChoice } from "../engines/engine.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { AgentEvent } from "./agent-events.ts";
import { ContextBudget } from "./context/context-budget.ts";
import {
  FileReadLedger,
  removeTempFilesOfDeadWriters,
  UndoStack,
  type UndoResult,
} from "./edits/index.ts";
import { loadInstructions } from "./instructions/load-instructions.ts";
import type { ModelClient } from "./model-client/model-client.ts";
import { readSession } from "./session-store/read-session.ts";
import { SessionLog } from "./session-store/session-log.ts";
import type { CommandSandbox } from "./sandbox/command-sandbox.ts";
import { resolveCommandSandbox } from "./sandbox/resolve-command-sandbox.ts";
import type { CommandApproval } from "./approval/command-approval.ts";
import { ToolRegistry } from "./tools/tool-registry.ts";
import type { TranscriptMessage } from "./transcript.ts";
import { TurnControl } from "./turn-control.ts";
import { runTurn, type TurnHost, type TurnResult } from "./turn-loop.ts";

export interface AgentSessionOptions {
  client: ModelClient;
  /** The repository folder the tools work in (default: process.cwd()). */
  workspaceRoot?: string;
  /** Where session logs go: `<sparkHome>/sessions`. */
  sessionsDirectory: string;
  /** Model name passed to the engine; also recorded in the log. */
  model?: string;
  /** The owner recorded in a new log's header (the app server's tenant); absent: the local user. */
  tenant?: string;
  /** The system message; default prompts/system.md plus AGENTS.md files. */
  instructions?: string;
  commandApproval?: CommandApproval;
  /** What run_command's children run inside; default: bubblewrap where it works, no network. */
  commandSandbox?: CommandSandbox;
  /** Model calls per turn before it stops (default 50). */
  maxSteps?: number;
  contextWindowTokens?: number;
  sampling?: SamplingOptions;
  /** Tool choice for each turn's first model call; later calls are "auto". */
  firstStepToolChoice?: ToolChoice;
  registry?: ToolRegistry;
}

export interface CompactOutcome {
  compacted: boolean;
  /** Estimated prompt tokens of the next model call, before and after. */
  tokensBefore: number;
  tokensAfter: number;
}

export type AgentEventListener = (event: AgentEvent) => void;

export class AgentSession {
  readonly id: string;
  readonly logPath: string;
  /** When the session first started (its log header), however often it was resumed. */
  readonly startedAt: string;
  /** The log's length in bytes when this session was opened here: what a resume read back. */
  readonly logLengthAtOpen: number;
  readonly workspaceRoot: string;
  private readonly listeners = new Set<AgentEventListener>();
  private readonly host: TurnHost;
  private messages: TranscriptMessage[];
  private activeTurn: TurnControl | undefined;
  private running: Promise<TurnResult> | undefined;
  /** Told to the model with the next message (e.g. that the user undid an edit). */
  private notes: string[] = [];

  private constructor(
    private readonly log: SessionLog,
    options: AgentSessionOptions,
    workspaceRoot: string,
    transcript: TranscriptMessage[],
    undoStack: UndoStack,
    commandSandbox: CommandSandbox,
    tenant: string | undefined,
  ) {
    this.id = log.id;
    this.logPath = log.path;
    this.startedAt = log.startedAt;
    this.logLengthAtOpen = log.length;
    this.workspaceRoot = workspaceRoot;
    this.messages = transcript;
    this.host = {
      client: options.client,
      registry: options.registry ?? new ToolRegistry(),
      budget: new ContextBudget(
        options.contextWindowTokens === undefined
          ? {}
          : { windowTokens: options.contextWindowTokens },
      ),
      model: options.model,
      sessionKey: `spark-session-${log.id}`,
      // The engine's caches (in memory and on disk) are the tenant's own, as the gateway's are for
      // the same key; the local user's sessions share `spark exec`'s.
      cacheScope: tenant,
      sampling: options.sampling,
      firstStepToolChoice: options.firstStepToolChoice,
      maxSteps: options.maxSteps ?? 50,
      workspaceRoot,
      ledger: new FileReadLedger({ workspaceRoot }),
      undoStack,
      commandApproval: options.commandApproval ?? { autoApprove: false },
      commandSandbox,
      transcript: () => this.messages,
      append: (message) => {
        this.messages.push(message);
        this.log.append({ type: "message", message });
      },
      replaceTranscript: (messages) => {
        this.messages = messages;
        this.log.append({ type: "transcript-replaced", messages });
      },
      emit: (event) => this.emit(event),
      recordUndoEntry: (undoEntryId) => {
        const entry = undoStack.peek();
        if (entry?.id === undoEntryId) this.log.append({ type: "undo-entry", entry });
      },
    };
  }

  /** Starts a new session: a fresh log and the system message. */
  static async create(options: AgentSessionOptions): Promise<AgentSession> {
    const workspaceRoot = realpathSync(options.workspaceRoot ?? process.cwd());
    // A session killed mid-edit may have left a large temp file beside its target.
    await removeTempFilesOfDeadWriters();
    const instructions = options.instructions ?? (await loadInstructions({ cwd: workspaceRoot }));
    const log = SessionLog.create(options.sessionsDirectory, {
      cwd: workspaceRoot,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    });
    const session = new AgentSession(
      log,
      options,
      workspaceRoot,
      [],
      new UndoStack(),
      options.commandSandbox ?? (await resolveCommandSandbox()),
      options.tenant,
    );
    session.host.append({ role: "system", content: instructions });
    return session;
  }

  /** Continues a logged session: its transcript and undo history, appending to the same file. */
  static async resume(logPath: string, options: AgentSessionOptions): Promise<AgentSession> {
    const loaded = await readSession(logPath);
    const workspaceRoot = realpathSync(options.workspaceRoot ?? loaded.summary.cwd);
    await removeTempFilesOfDeadWriters();
    const log = SessionLog.open(loaded.summary);
    const session = new AgentSession(
      log,
      options,
      workspaceRoot,
      loaded.transcript,
      new UndoStack({ entries: loaded.undoEntries }),
      options.commandSandbox ?? (await resolveCommandSandbox()),
      loaded.summary.tenant,
    );
    if (loaded.undoneSinceLastTurn.length > 0) {
      session.notes.push(undoneNote(loaded.undoneSinceLastTurn));
    }
    return session;
  }

  /** What this session's commands run inside. */
  get commandSandbox(): CommandSandbox {
    return this.host.commandSandbox;
  }

  /** The model name this session asks its client for. */
  get model(): string | undefined {
    return this.host.model;
  }

  /** Uses this model from the next model call on (the app server switches only between turns). */
  useModel(client: ModelClient, model: string | undefined, contextWindowTokens?: number): void {
    this.host.client = client;
    this.host.model = model;
    if (contextWindowTokens !== undefined)
      this.host.budget = new ContextBudget({ windowTokens: contextWindowTokens });
  }

  /** The log's length in bytes now: every event emitted so far is in it. */
  get logLength(): number {
    return this.log.length;
  }

  get transcript(): readonly TranscriptMessage[] {
    return this.messages;
  }

  get isRunning(): boolean {
    return this.activeTurn !== undefined;
  }

  /** Listens to every event from now on; returns the unsubscribe function. */
  subscribe(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Announces the session (surfaces print its id); emitted by the caller once it has subscribed. */
  announce(resumed: boolean): void {
    this.emit({
      type: "session-started",
      sessionId: this.id,
      logPath: this.logPath,
      cwd: this.workspaceRoot,
      ...(this.host.model === undefined ? {} : { model: this.host.model }),
      resumed,
      commandSandbox: {
        kind: this.host.commandSandbox.kind,
        description: this.host.commandSandbox.description,
      },
    });
  }

  /** Runs a turn for the message; resolves when it ends (completed, interrupted, error, step limit). */
  async submit(text: string): Promise<TurnResult> {
    if (this.activeTurn !== undefined) {
      throw new SparkError(
        "engine_busy",
        "A turn is already running: steer it, queue the message, or interrupt it first.",
      );
    }
    const toolChanges = this.host.registry.takeToolChanges();
    const notes = [...this.notes.splice(0), ...(toolChanges === undefined ? [] : [toolChanges])];
    const content = notes.length === 0 ? text : `${notes.join("\n")}\n\n${text}`;
    const control = new TurnControl(text);
    this.activeTurn = control;
    try {
      this.running = runTurn(control, this.host, text, content);
      return await this.running;
    } finally {
      this.activeTurn = undefined;
      this.running = undefined;
    }
  }

  /** Interrupts the running step and continues the same turn with this message; idle: submits it. */
  steer(text: string): Promise<TurnResult> | undefined {
    if (this.activeTurn === undefined) return this.submit(text);
    this.activeTurn.steer(text);
    return undefined;
  }

  /** Delivers the message when the current step ends; idle: submits it. */
  queue(text: string): Promise<TurnResult> | undefined {
    if (this.activeTurn === undefined) return this.submit(text);
    this.activeTurn.queue(text);
    return undefined;
  }

  /** Stops generation and any running tool now; the turn ends as interrupted. */
  interrupt(): void {
    this.activeTurn?.interrupt();
  }

  /** Waits for the running turn, if any, to end. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** Puts back the files of this session's last edit. */
  async undo(options: { force?: boolean } = {}): Promise<UndoResult> {
    if (this.activeTurn !== undefined) {
      throw new SparkError(
        "engine_busy",
        "A turn is running; interrupt it before undoing an edit.",
      );
    }
    const result = await this.host.undoStack.undo({
      workspaceRoot: this.workspaceRoot,
      ledger: this.host.ledger,
      ...(options.force === undefined ? {} : { force: options.force }),
    });
    this.emit({
      type: "edit-undone",
      undoEntryId: result.entry.id,
      files: result.files.map((file) => ({
        path: file.path,
        action: file.action,
        unifiedDiff: file.diff,
      })),
    });
    this.notes.push(undoneNote(result.files.map((file) => file.path)));
    return result;
  }

  /**
   * Summarises the turns so far into one message now, the way a full context would (the TUI's
   * /compact); the replacement is logged so a resumed session continues from the summary.
   */
  compact(): CompactOutcome {
    if (this.activeTurn !== undefined) {
      throw new SparkError(
        "engine_busy",
        "A turn is running; wait for it to finish or interrupt it before compacting.",
      );
    }
    const result = this.host.budget.compact(this.messages, this.host.registry.definitions);
    if (!result.compacted) return result;
    this.host.replaceTranscript(result.messages);
    this.emit({
      type: "context-compacted",
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      windowTokens: this.host.budget.windowTokens,
    });
    return { compacted: true, tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter };
  }

  /** Interrupts any running turn and closes the log. */
  async close(): Promise<void> {
    this.interrupt();
    await this.idle();
    this.log.close();
  }

  private emit(event: AgentEvent): void {
    this.log.append(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A surface's rendering bug must not end the turn; the event is in the log regardless.
      }
    }
  }
}

function undoneNote(paths: readonly string[]): string {
  return `[The user undid your last edit (${[...new Set(paths)].join(", ")}); those files are back as they were before it.]`;
}
