// `spark sessions`: the agent sessions logged under <sparkHome>/sessions, newest first, with the
// id `spark exec --resume` and `spark undo --session` take.
import type { Command } from "commander";
import { listSessions, sessionsDirectory } from "../../agent/session-store/session-directory.ts";
import { loadConfig } from "../../config/load-config.ts";

interface SessionsFlags {
  json?: boolean;
  limit?: string;
}

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("List agent sessions (id, start time, folder, first instruction, turns)")
    .option("--json", "print one JSON object per session")
    .option("-n, --limit <n>", "show at most this many (default 20)")
    .action(async (flags: SessionsFlags) => {
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
    });
}

function formatTime(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
