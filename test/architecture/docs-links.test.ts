// The documents' links resolve: every relative link in README.md, ARCHITECTURE.md, SECURITY.md and
// docs/ names a file (or folder) that exists, and a #fragment names a heading of that page.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

function documents(): string[] {
  const top = ["README.md", "ARCHITECTURE.md", "SECURITY.md"].map((name) =>
    path.join(repositoryRoot, name),
  );
  const docs = path.join(repositoryRoot, "docs");
  const pages = fs.existsSync(docs)
    ? fs
        .readdirSync(docs)
        .filter((name) => name.endsWith(".md"))
        .map((name) => path.join(docs, name))
    : [];
  return [...top, ...pages].filter((file) => fs.existsSync(file));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const anchor = (match[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    anchors.add(anchor);
  }
  return anchors;
}

/** Links outside code: `[text](target)`, without the fenced blocks and inline code. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] as string);
}

describe("the documents' links", () => {
  it("all resolve", () => {
    const broken: string[] = [];
    for (const file of documents()) {
      const markdown = fs.readFileSync(file, "utf8");
      for (const link of linksOf(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
        const [target = "", fragment] = link.split("#");
        const resolved = target === "" ? file : path.resolve(path.dirname(file), decodeURI(target));
        const where = `${path.relative(repositoryRoot, file)} → ${link}`;
        if (!fs.existsSync(resolved)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith(".md")) {
          if (!anchorsOf(fs.readFileSync(resolved, "utf8")).has(fragment)) {
            broken.push(`${where} (no such heading)`);
          }
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
