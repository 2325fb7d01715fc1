// Session logs read back: transcript rewrites, undo entries minus undone ones, a torn last line,
// tool calls left open by a crash, lookup by id prefix or "last", and the owner a header records.
import { appendFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../temporary-directory-test-support.ts";
import { findSession, findSessionLog, listSessions } from "./session-directory.ts";
import { SessionLog } from "./session-log.ts";
import { readSession, readSessionHeader } from "./read-session.ts";

const entry = (id: string) => ({
  id,
  tool: "edit" as const,
  createdAt: "2025-01-01T00:00:00Z",
  files: [],
});

describe("session logs", () => {
  it("fold back into transcript, undo entries and a summary", async () => {
    const directory = temporaryDirectory("spark-sessions-");
    const log = SessionLog.create(directory, { cwd: "/repo", model: "script" });
    log.append({ type: "turn-started", turnId: "t1", text: "First ask" });
    log.append({ type: "message", message: { role: "user", content: "First ask" } });
    log.append({
      type: "message",
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "read_file", arguments: "{}" }],
      },
    });
    log.append({ type: "undo-entry", entry: entry("u1") });
    log.append({ type: "undo-entry", entry: entry("u2") });
    log.append({ type: "edit-undone", undoEntryId: "u2", files: [] });
    log.close();
    appendFileSync(log.path, '{"type":"message","mess'); // torn by a crash

    const loaded = await readSession(log.path);
    expect(loaded.summary).toMatchObject({
      id: log.id,
      cwd: "/repo",
      model: "script",
      turns: 1,
      firstInstruction: "First ask",
    });
    expect(loaded.undoEntries.map((undo) => undo.id)).toEqual(["u1"]);
    expect(loaded.transcript.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c1",
      name: "read_file",
      content: "Not run: the session ended before this tool call finished.",
    });
    expect(path.basename(log.path)).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${log.id}\\.jsonl$`));
  });

  it("are found by id, unique prefix or last", async () => {
    const directory = temporaryDirectory("spark-sessions-");
    const older = SessionLog.create(directory, { cwd: "/a" });
    older.close();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = SessionLog.create(directory, { cwd: "/b" });
    newer.close();
    expect((await listSessions(directory)).map((session) => session.id)).toEqual([
      newer.id,
      older.id,
    ]);
    expect((await findSession(directory, "last")).id).toBe(newer.id);
    expect((await findSession(directory, older.id)).cwd).toBe("/a");
    await expect(findSession(directory, "zzzz")).rejects.toThrow('No session "zzzz"');
  });
});

describe("listing sessions", () => {
  it("reads a log again once it grew, and drops one that was removed", async () => {
    const directory = temporaryDirectory("spark-sessions-");
    const log = SessionLog.create(directory, { cwd: "/repo" });
    expect((await listSessions(directory))[0]).toMatchObject({ id: log.id, turns: 0 });
    log.append({ type: "turn-started", turnId: "t1", text: "Later ask" });
    expect((await listSessions(directory))[0]).toMatchObject({
      turns: 1,
      firstInstruction: "Later ask",
    });
    log.close();
    rmSync(log.path);
    expect(await listSessions(directory)).toEqual([]);
  });

  it("records the tenant in the header, readable without reading the rest of the log", async () => {
    const directory = temporaryDirectory("spark-sessions-");
    const owned = SessionLog.create(directory, { cwd: "/repo", tenant: "key-0123" });
    owned.append({ type: "turn-started", turnId: "t1", text: "Ask" });
    owned.close();
    const local = SessionLog.create(directory, { cwd: "/repo" });
    local.close();
    const ownedPath = await findSessionLog(directory, owned.id);
    expect(ownedPath).toBe(owned.path);
    expect(await findSessionLog(directory, "00000000")).toBeUndefined();
    expect(await readSessionHeader(owned.path)).toMatchObject({ id: owned.id, tenant: "key-0123" });
    expect((await readSession(owned.path)).summary.tenant).toBe("key-0123");
    const localHeader = await readSessionHeader(local.path);
    expect(localHeader?.id).toBe(local.id);
    expect(localHeader).not.toHaveProperty("tenant");
    appendFileSync(path.join(directory, "2025-01-01-notalog.jsonl"), '{"type":"message"}\n');
    expect(
      await readSessionHeader(path.join(directory, "2025-01-01-notalog.jsonl")),
    ).toBeUndefined();
    expect(await readSessionHeader(path.join(directory, "missing.jsonl"))).toBeUndefined();
  });
});
