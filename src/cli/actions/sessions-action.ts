// `spark sessions`'s listing: the session logs under <sparkHome>/sessions as a table or JSON lines.
// commands/sessions-command.ts loads it lazily.
import { listSessions, sessionsDirectory } from "../../agent/session-store/session-directory.ts";
import { loadConfig } from "../../config/load-config.ts";

export interface SessionsFlags {
  json?: boolean;
  limit?: string;
}

export async function listSessionsCommand(flags: SessionsFlags): Promise<void> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: {} });
  const limit = flags.limit === undefined ? 20 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`spark sessions: --limit must be a positive whole number.\n`);
    process.exitCode = 2;
    return;
  }
  const directory = sessionsDirectory(config.sparkHome);
  const sessions = (await listSessions(directory)).slice(0, limit);
  if (flags.json === true) {
    for (const session of sessions) process.stdout.write(`${JSON.stringify(session)}\n`);
    return;
  }
  if (sessions.length === 0) {
    process.stdout.write(
      `No sessions yet in ${directory}. Start one with spark exec "<instruction>".\n`,
    );
    return;
  }
  const rows = sessions.map((session) => [
    session.id,
    formatTime(session.startedAt),
    String(session.turns),
    session.cwd,
    oneLine(session.firstInstruction, 60),
  ]);
  const header = ["ID", "STARTED", "TURNS", "FOLDER", "FIRST INSTRUCTION"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  for (const row of [header, ...rows]) {
    const cells = row.map((cell, column) =>
      column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
    );
    process.stdout.write(`${cells.join("  ")}\n`);
  }
}

function formatTime(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
