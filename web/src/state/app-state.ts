// What the page shows, as one immutable value the store replaces on every change, and the
// browser pieces the store is given.
import type { MessageTransport, SessionSummary } from "../../../src/protocol/agent/index.ts";
import type { Upload } from "./attachments.ts";
import type { ConnectionPhase } from "./connection.ts";
import { emptyLiveStats } from "./live-stats.ts";
import { emptyQueue, type SessionQueue } from "./message-queue.ts";
import { emptyTranscript } from "./transcript.ts";
import type { SessionView, StorageLike } from "./view-storage.ts";

export interface AppState {
  connection: ConnectionPhase;
  connectionDetail: string | undefined;
  sessions: readonly SessionSummary[];
  models: readonly string[];
  defaultModel: string | undefined;
  currentSessionId: string | undefined;
  view: SessionView;
  files: { paths: readonly string[]; truncated: boolean; query: string };
  attachedFiles: readonly string[];
  uploads: readonly Upload[];
  /** The last thing that went wrong (or a refusal), shown until the next action. */
  flash: Flash | undefined;
  helpOpen: boolean;
  /** Messages this page queued for the open session, sent one per idle. */
  queue: SessionQueue;
  /** The sessions and files panel on a narrow screen (always shown on a wide one). */
  sidebarOpen: boolean;
  /** An attached file's text, shown as text in a dialog. */
  preview: { title: string; text: string } | undefined;
}

export interface Flash {
  text: string;
  tone: "error" | "info";
  /** "disconnected": cleared by the next connection. */
  cause?: "disconnected";
}

export interface AppStoreOptions {
  openTransport: () => Promise<MessageTransport>;
  storage?: StorageLike;
  /** requestAnimationFrame in the page. */
  scheduleFrame: (callback: () => void) => void;
  now?: () => number;
  /** The session named in the page's URL, and how to name a new one there. */
  route?: { read(): string | undefined; write(sessionId: string): void };
  setTimer?: (callback: () => void, delayMs: number) => unknown;
}

export const emptyView = (): SessionView => ({
  transcript: emptyTranscript,
  stats: emptyLiveStats,
  lastSequence: 0,
});

export function initialAppState(): AppState {
  return {
    connection: "connecting",
    connectionDetail: undefined,
    sessions: [],
    models: [],
    defaultModel: undefined,
    currentSessionId: undefined,
    view: emptyView(),
    files: { paths: [], truncated: false, query: "" },
    attachedFiles: [],
    uploads: [],
    flash: undefined,
    helpOpen: false,
    queue: emptyQueue,
    sidebarOpen: false,
    preview: undefined,
  };
}
