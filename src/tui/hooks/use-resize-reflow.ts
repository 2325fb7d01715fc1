// Keeps a resize from leaving copies of the live region (input box, streaming line, status) on
// screen. Ink erases its last frame by counting the rows it wrote; a terminal that reflows on
// resize (tmux, most emulators) has re-wrapped those rows, so after shrinking Ink's count fell
// short and stale borders and partial answers stayed above the new frame. Before Ink handles the
// resize, this erases the frame as the terminal now shows it and leaves the cursor where Ink's
// own erase ends on the frame's first row. Finished items are above it, in the scrollback, and
// reflow by themselves (they are written unwrapped: unwrapped-width.ts).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { useEffect } from "react";
import { displayWidth } from "../state/terminal-text.ts";

const ESC = "\u001b[";

/** What Ink last drew in the live region: its own instance's field (Ink exports no getter). */
interface InkFrame {
  lastOutput?: unknown;
}

let inkInstances: WeakMap<NodeJS.WriteStream, InkFrame> | undefined;

/** Ink's instance registry, read once; undefined when Ink's layout changed (then nothing is done). */
async function loadInkInstances(): Promise<WeakMap<NodeJS.WriteStream, InkFrame> | undefined> {
  if (inkInstances !== undefined) return inkInstances;
  try {
    const inkEntry = createRequire(import.meta.url).resolve("ink");
    const module = (await import(
      pathToFileURL(path.join(path.dirname(inkEntry), "instances.js")).href
    )) as { default?: unknown };
    if (module.default instanceof WeakMap)
      inkInstances = module.default as WeakMap<NodeJS.WriteStream, InkFrame>;
  } catch {
    // An Ink without build/instances.js: resizes fall back to Ink's own erase.
  }
  return inkInstances;
}

/** Rows `frame` takes once a reflowing terminal re-wraps it at `columns`. */
export function reflowedRows(frame: string, columns: number): number {
  return frame
    .split("\n")
    .reduce(
      (rows, line) =>
        rows + Math.max(1, Math.ceil(displayWidth(stripVTControlCharacters(line)) / columns)),
      0,
    );
}

/**
 * The escapes that erase `frame` (drawn ending with a newline, the cursor below it) as re-wrapped
 * at `columns`, then put the cursor as many rows below the frame's top as Ink will move up.
 */
export function eraseReflowedFrame(frame: string, columns: number): string {
  if (frame === "") return "";
  const drawnRows = frame.split("\n").length;
  const rows = reflowedRows(frame, columns);
  return `${ESC}${rows}A\r${ESC}J${ESC}${drawnRows}B`;
}

export function useResizeReflow(stdout: NodeJS.WriteStream): void {
  useEffect(() => {
    if (stdout.isTTY !== true) return;
    let instances: WeakMap<NodeJS.WriteStream, InkFrame> | undefined;
    void loadInkInstances().then((loaded) => {
      instances = loaded;
    });
    const beforeInk = (): void => {
      const frame = instances?.get(stdout)?.lastOutput;
      if (typeof frame !== "string" || frame === "") return;
      stdout.write(eraseReflowedFrame(frame, stdout.columns || 80));
    };
    // Ink's own listener was added when it rendered: this one must run first.
    stdout.prependListener("resize", beforeInk);
    return () => {
      stdout.off("resize", beforeInk);
    };
  }, [stdout]);
}
