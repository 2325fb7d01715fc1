// Model and file text is data: the browser app (Preact elements with text children) and the
// editor's Ask page (createElement and textContent) never hand a string to the HTML parser. Any
// use of an HTML sink in their source fails here, with the file and the sink.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const RENDERERS = ["web/src", "editors/vscode/src/page", "src/protocol/transcript"];
const HTML_SINKS =
  /\b(?:innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|createContextualFragment|document\.write|DOMParser)\b/g;

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("the surfaces that render model text", () => {
  it("never parse it as HTML", () => {
    const files = RENDERERS.flatMap((folder) => sourceFiles(path.join(repositoryRoot, folder)));
    const sinks = files.flatMap((file) =>
      [...fs.readFileSync(file, "utf8").matchAll(HTML_SINKS)].map(
        (match) => `${path.relative(repositoryRoot, file)} uses ${match[0]}`,
      ),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(sinks).toEqual([]);
  });
});
