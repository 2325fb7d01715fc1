// Every action a component can take on the page's state (open, send, queue, interrupt, undo,
// approve, attach files, toggle panels); SessionFeedStore below it keeps that state in step with
// the server. Plain TypeScript over the agent protocol client, so it runs under vitest.
import type { ApprovalDecision } from "../../../src/protocol/agent/index.ts";
import {
  checkUpload,
  composeMessage,
  uploadSizeRefusal,
  type MessageParts,
  type UploadSource,
} from "./attachments.ts";
import { mergeSession } from "./session-list.ts";
import { SessionFeedStore } from "./session-feed-store.ts";
import { latestUndoableEdit, undoStepsTo } from "./transcript.ts";

export type { AppState, AppStoreOptions, Flash } from "./app-state.ts";

export class AppStore extends SessionFeedStore {
  async openSession(sessionId: string): Promise<void> {
    const previous = this.state.currentSessionId;
    if (this.state.sidebarOpen) this.update({ sidebarOpen: false });
    if (previous === sessionId) return;
    this.saveSnapshot();
    this.showSession(sessionId);
    const client = this.connection.current;
    if (client === undefined) return; // Attached once the connection opens.
    if (previous !== undefined) {
      client.request("session/detach", { sessionId: previous }).catch(() => undefined);
    }
    await this.attach(client, sessionId);
  }

  async newSession(cwd: string, model: string): Promise<void> {
    await this.withClient(async (client) => {
      const { session } = await client.request("session/start", {
        ...(cwd.trim() === "" ? {} : { cwd: cwd.trim() }),
        ...(model === "" ? {} : { model }),
      });
      this.update({ sessions: mergeSession(this.state.sessions, session) });
      await this.openSession(session.sessionId);
    });
  }

  /**
   * Enter: starts a turn when idle, steers the running one otherwise. Queue: waits in this page
   * until the turn ends, then starts the next turn (the server's own queue would join the
   * running turn between two steps).
   */
  async send(text: string, mode: "send" | "queue" = "send"): Promise<boolean> {
    const { attachedFiles, uploads } = this.state;
    const message = composeMessage(text, attachedFiles, uploads);
    if (message.trim() === "") return false;
    const parts: MessageParts = {
      text: text.trim(),
      files: attachedFiles,
      uploads: uploads.map(({ name, text: content }) => ({ name, text: content })),
    };
    return this.withClient(async (client) => {
      if (this.state.currentSessionId === undefined) await this.newSession("", "");
      const sessionId = this.state.currentSessionId;
      if (sessionId === undefined) return false;
      const idle = this.state.view.transcript.status === "idle";
      this.sentMessages.remember(message, parts);
      if (mode === "queue" && !idle) this.queues.add(sessionId, message, parts);
      else if (idle) await client.request("turn/start", { sessionId, text: message });
      else await client.request("turn/steer", { sessionId, text: message });
      this.update({ attachedFiles: [], uploads: [], flash: undefined });
      return true;
    }).then((sent) => sent === true);
  }

  removeQueued(id: string): void {
    const sessionId = this.state.currentSessionId;
    if (sessionId !== undefined) this.queues.remove(sessionId, id);
  }

  /** Sends the held queue on: now if the session is idle, else when its turn ends. */
  resumeQueue(): void {
    const sessionId = this.state.currentSessionId;
    if (sessionId === undefined) return;
    this.queues.resume(sessionId);
    if (this.views.get(sessionId)?.transcript.status === "idle") {
      void this.queues.sendNext(sessionId);
    }
  }

  async interrupt(): Promise<void> {
    const sessionId = this.state.currentSessionId;
    // Not gated on the status this page saw: Esc may land before `status-changed` arrives.
    if (sessionId === undefined) return;
    this.queues.hold(sessionId);
    await this.withClient((client) => client.request("turn/interrupt", { sessionId }));
  }

  /** Undoes this edit, and first every later one (the server undoes newest first). */
  async undo(undoEntryId: string | undefined): Promise<void> {
    const sessionId = this.state.currentSessionId;
    const items = this.state.view.transcript.items;
    const target = undoEntryId ?? latestUndoableEdit(items);
    if (sessionId === undefined || target === undefined) return;
    const steps = undoStepsTo(items, target);
    await this.withClient(async (client) => {
      for (let step = 0; step < steps; step += 1) {
        const result = await client.request("edit/undo", { sessionId });
        if (result.undoEntryId === target) break;
      }
    });
  }

  async respondToApproval(approvalId: string, decision: ApprovalDecision): Promise<void> {
    const sessionId = this.state.currentSessionId;
    if (sessionId === undefined) return;
    await this.withClient((client) =>
      client.request("approval/respond", { sessionId, approvalId, decision }),
    );
  }

  toggleAttachedFile(path: string): void {
    const attached = this.state.attachedFiles;
    this.update({
      attachedFiles: attached.includes(path)
        ? attached.filter((file) => file !== path)
        : [...attached, path],
    });
  }

  addUpload(name: string, data: Uint8Array): void {
    const existing = this.state.uploads.reduce((sum, upload) => sum + upload.bytes, 0);
    const checked = checkUpload(name, data, existing);
    if (!checked.ok) {
      this.update({ flash: { text: checked.reason, tone: "error" } });
      return;
    }
    this.update({ uploads: [...this.state.uploads, checked.upload], flash: undefined });
  }

  /** A picked or dropped file: refused by its size before a byte is read, else read and checked. */
  async addUploadFrom(file: UploadSource): Promise<void> {
    const existing = this.state.uploads.reduce((sum, upload) => sum + upload.bytes, 0);
    const refusal = uploadSizeRefusal(file.name, file.size, existing);
    if (refusal !== undefined) {
      this.update({ flash: { text: refusal, tone: "error" } });
      return;
    }
    this.addUpload(file.name, new Uint8Array(await file.arrayBuffer()));
  }

  removeUpload(index: number): void {
    this.update({ uploads: this.state.uploads.filter((_, position) => position !== index) });
  }

  /** Workspace files matching an `@` mention (no flash on failure: the list just stays empty). */
  async findFiles(query: string, limit = 50): Promise<readonly string[]> {
    const sessionId = this.state.currentSessionId;
    const client = this.connection.current;
    if (sessionId === undefined || client === undefined) return [];
    try {
      const result = await client.request("workspace/files", { sessionId, query, limit });
      return result.files;
    } catch {
      return [];
    }
  }

  showPreview(title: string, text: string): void {
    this.update({ preview: { title, text } });
  }

  closePreview(): void {
    this.update({ preview: undefined });
  }

  setSidebarOpen(open: boolean): void {
    this.update({ sidebarOpen: open });
  }

  setHelpOpen(open: boolean): void {
    this.update({ helpOpen: open });
  }

  dismissFlash(): void {
    this.update({ flash: undefined });
  }
}
