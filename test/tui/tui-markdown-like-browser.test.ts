// One answer with ~~strike~~, a table and a nested list, shown by the terminal UI in a real
// terminal (tmux) and by the browser app in chromium, each read back as an outline (the struck
// text, the table's cells row by row, the list's items with their nesting) and compared: both
// render the shared Markdown reader's tree (src/protocol/transcript), so they must say the same.
// Before it, the terminal read Markdown with a parser of its own that knew no table and the
// browser's knew no strike nor nested list.
import { afterAll, describe, expect, it } from "vitest";
import { send, lastReply, useBrowserApp, waitForIdle } from "../web/support/browser-app-harness.ts";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { sparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const ANSWER = [
  "Use ~~the old API~~ the new one.",
  "",
  "| name | size |",
  "|:--|--:|",
  "| `a.ts` | 12 |",
  "| **b.ts** | 3 |",
  "",
  "- top",
  "  - inner one",
  "    1. deepest",
  "  - inner two",
  "- last",
  "",
  "Done.",
].join("\n");

interface ListOutline {
  text: string;
  items: ListOutline[];
}

interface Outline {
  struck: string[];
  table: string[][];
  list: ListOutline[];
}

const EXPECTED: Outline = {
  struck: ["the old API"],
  table: [
    ["name", "size"],
    ["a.ts", "12"],
    ["b.ts", "3"],
  ],
  list: [
    {
      text: "top",
      items: [
        { text: "inner one", items: [{ text: "deepest", items: [] }] },
        { text: "inner two", items: [] },
      ],
    },
    { text: "last", items: [] },
  ],
};

const inCi = process.env.CI === "true";
const missingChromium = chromiumMissingReason();
const missing = !hasTmux && !inCi ? "tmux is missing" : missingChromium;
if (missing !== undefined)
  console.warn(`Skipping the terminal-and-browser Markdown test: ${missing}.`);

describe.skipIf(missing !== undefined)(
  "one answer's Markdown in the terminal and the browser",
  () => {
    const harness = useBrowserApp();
    const server = tmuxServer("spark-tui-like-browser");
    afterAll(() => {
      if (hasTmux) server.kill();
    });

    it("shows the same struck text, table cells and list nesting on both", async () => {
      const page = await harness.open([{ text: ANSWER }]);
      await send(page, "show it");
      await waitForIdle(page);
      const browser = await lastReply(page).evaluate((reply: Element): Outline => {
        const textOf = (node: Node): string => (node.textContent ?? "").trim();
        const walk = (list: Element): ListOutline[] =>
          Array.from(list.children).map((item: Element) => ({
            text: Array.from(item.childNodes)
              .filter((node: Node) => node.nodeName !== "UL" && node.nodeName !== "OL")
              .map(textOf)
              .join("")
              .trim(),
            items: Array.from(item.children)
              .filter((child: Element) => child.tagName === "UL" || child.tagName === "OL")
              .flatMap(walk),
          }));
        const list = reply.querySelector(".markdown > ul, .markdown > ol");
        return {
          struck: Array.from(reply.querySelectorAll("del")).map(textOf),
          table: Array.from(reply.querySelectorAll("tr")).map((row: Element) =>
            Array.from(row.children).map(textOf),
          ),
          list: list === null ? [] : walk(list),
        };
      });

      const spark = sparkPane(server, [{ text: ANSWER }]);
      try {
        spark.start("md", { columns: 100, rows: 50 });
        await server.waitForPane("md", "started", (pane) => pane.includes("idle ·"));
        spark.keys("md", "show it", "Enter");
        await server.waitForPane("md", "answered", (pane) => pane.includes("Done."));
        const styled = server.run("capture-pane", "-p", "-e", "-J", "-S", "-500", "-t", "md");
        const terminal = terminalOutline(styled);

        expect(browser).toEqual(EXPECTED);
        expect(terminal).toEqual(browser);
      } finally {
        spark.workspace.remove();
      }
    });
  },
);

/** A terminal's select-graphic-rendition sequence (colours, bold, strikethrough…). */
const SGR = `${String.fromCharCode(27)}\\[([0-9;:]*)m`;

/** The outline of what the pane shows: struck runs (SGR 9), `│`-separated rows, `•`/`1.` items. */
function terminalOutline(styled: string): Outline {
  const lines = styled.split("\n");
  const plain = lines.map((line) => line.replace(new RegExp(SGR, "g"), ""));
  const table = plain
    .filter((line) => line.includes(" │ "))
    .map((line) =>
      line
        .replace(/^● /, "")
        .split("│")
        .map((cell) => cell.trim()),
    );
  const list: ListOutline[] = [];
  const open: { indent: number; items: ListOutline[] }[] = [{ indent: -1, items: list }];
  for (const line of plain) {
    const item = /^(\s*)(?:•|\d+[.)]) (.*)$/.exec(line);
    if (item === null) continue;
    const indent = item[1]?.length ?? 0;
    while ((open.at(-1)?.indent ?? -1) >= indent) open.pop();
    const node: ListOutline = { text: (item[2] ?? "").trim(), items: [] };
    open.at(-1)?.items.push(node);
    open.push({ indent, items: node.items });
  }
  return { struck: lines.flatMap(struckRuns), table, list };
}

/** The runs of a line drawn with the strikethrough attribute. */
function struckRuns(line: string): string[] {
  const runs: string[] = [];
  let struck = false;
  let run = "";
  for (const part of line.split(new RegExp(`(${SGR.replace("(", "(?:")})`))) {
    const sgr = new RegExp(`^${SGR}$`).exec(part);
    if (sgr === null) {
      if (struck) run += part;
      continue;
    }
    for (const parameter of (sgr[1] ?? "").split(";")) {
      if (parameter === "9") struck = true;
      else if (parameter === "" || parameter === "0" || parameter === "29") struck = false;
    }
    if (!struck && run.trim() !== "") runs.push(run.trim());
    if (!struck) run = "";
  }
  if (run.trim() !== "") runs.push(run.trim());
  return runs;
}
