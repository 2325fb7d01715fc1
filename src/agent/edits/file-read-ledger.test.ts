import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTempWorkspace,
  type TempWorkspace,
} from "../../../test/agent/edits/temp-workspace.ts";
import { EditError } from "./edit-error.ts";
import { sha256Of } from "./file-read-ledger.ts";

let workspace: TempWorkspace;

beforeEach(() => {
  workspace = createTempWorkspace();
});

afterEach(() => {
  workspace.remove();
});

describe("FileReadLedger", () => {
  it("records mtime, size and sha256 under the real path, from text or bytes", () => {
    const absolute = workspace.write("a.txt", "héllo\n");
    workspace.ledger.recordRead("./a.txt", "héllo\n");
    const record = workspace.ledger.lookup(absolute);
    expect(record?.sha256).toBe(sha256Of(Buffer.from("héllo\n")));
    expect(record?.size).toBe(7);
    expect(record?.mtimeMs).toBeGreaterThan(0);
    workspace.ledger.recordRead(absolute, Buffer.from("héllo\n"));
    expect(workspace.ledger.lookup(absolute)?.sha256).toBe(record?.sha256);
  });

  it("passes unread files and fresh files, and flags changed or deleted ones", () => {
    const absolute = workspace.write("a.txt", "one");
    expect(() =>
      workspace.ledger.assertFresh(absolute, "a.txt", sha256Of("anything")),
    ).not.toThrow();
    workspace.ledger.recordRead("a.txt", "one");
    expect(() => workspace.ledger.assertFresh(absolute, "a.txt", sha256Of("one"))).not.toThrow();
    expect(() => workspace.ledger.assertFresh(absolute, "a.txt", sha256Of("two"))).toThrow(
      EditError,
    );
    expect(() => workspace.ledger.assertFresh(absolute, "a.txt", null)).toThrow(
      "a.txt was deleted since you read it; read it again before editing",
    );
  });

  it("refuses to record a path outside the workspace", () => {
    expect(() => workspace.ledger.recordRead("../x.txt", "x")).toThrow(EditError);
  });
});
