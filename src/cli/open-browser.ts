// `spark serve --open`: hands the app's URL to the desktop's opener (xdg-open, open, start) when
// one exists. Never fails the server: without an opener it only says where to go.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";

export function openBrowser(url: string, log: (line: string) => void): void {
  const opener = findOpener();
  if (opener === undefined) {
    log(`No browser opener (xdg-open/open) found; open ${url} yourself.`);
    return;
  }
  try {
    const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: "ignore" });
    child.on("error", () => log(`Could not run ${opener.command}; open ${url} yourself.`));
    child.unref();
  } catch {
    log(`Could not run ${opener.command}; open ${url} yourself.`);
  }
}

function findOpener(): { command: string; args: string[] } | undefined {
  if (process.platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  const candidates = process.platform === "darwin" ? ["open"] : ["xdg-open", "open"];
  for (const name of candidates) {
    const found = onPath(name);
    if (found !== undefined) return { command: found, args: [] };
  }
  return undefined;
}

function onPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(path.delimiter)) {
    if (directory === "") continue;
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
