// Appends a session's records to its JSONL file as they happen, through one kept-open handle, so
// a crash loses nothing already shown. Synchronous writes keep lines whole and in order.
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { SparkError } from "../../protocol/spark-error.ts";
import { acquireSessionLock } from "./session-owner-lock.ts";
import { SESSION_LOG_VERSION, type SessionHeader, type SessionRecord } from "./session-records.ts";

export class SessionLog {
  private descriptor: number | undefined;
  /** Bytes in the file: what a reader may take as written so far (appends are synchronous). */
  private bytes: number;

  private constructor(
    readonly id: string,
    readonly path: string,
    /** The header's time: when the session first started, however often it was resumed. */
    readonly startedAt: string,
    descriptor: number,
    /** Gives up this process's ownership of the session (session-owner-lock.ts). */
    private readonly releaseLock: () => void = () => undefined,
  ) {
    this.descriptor = descriptor;
    this.bytes = fstatSync(descriptor).size;
  }

  get length(): number {
    return this.bytes;
  }

  /** Starts a new log `<directory>/<yyyy-mm-dd>-<id>.jsonl` with its header line. */
  static create(
    directory: string,
    header: { cwd: string; model?: string; tenant?: string },
  ): SessionLog {
    mkdirSync(directory, { recursive: true });
    const startedAt = new Date();
    const id = randomBytes(4).toString("hex");
    const file = path.join(directory, `${startedAt.toISOString().slice(0, 10)}-${id}.jsonl`);
    const releaseLock = acquireSessionLock(file, id);
    const log = new SessionLog(id, file, startedAt.toISOString(), openSync(file, "a"), releaseLock);
    const record: SessionHeader = {
      type: "session",
      version: SESSION_LOG_VERSION,
      id,
      startedAt: startedAt.toISOString(),
      cwd: header.cwd,
      ...(header.model === undefined ? {} : { model: header.model }),
      ...(header.tenant === undefined ? {} : { tenant: header.tenant }),
    };
    log.append(record);
    return log;
  }

  /** Reopens an existing log to append to it (resume, undo): refused while another process has it. */
  static open(summary: { path: string; id: string; startedAt: string }): SessionLog {
    const releaseLock = acquireSessionLock(summary.path, summary.id);
    try {
      return new SessionLog(
        summary.id,
        summary.path,
        summary.startedAt,
        openSync(summary.path, "a"),
        releaseLock,
      );
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  append(record: SessionRecord): void {
    if (this.descriptor === undefined) {
      throw new SparkError("internal_error", `The session log ${this.path} is closed.`);
    }
    const line = `${JSON.stringify({ ...record, at: new Date().toISOString() })}\n`;
    this.bytes += writeSync(this.descriptor, line);
  }

  close(): void {
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
    this.releaseLock();
  }
}
