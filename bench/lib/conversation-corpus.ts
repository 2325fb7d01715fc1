// Deterministic conversation text for the multi-turn scenarios: Spark's own sources, read in a
// fixed order and cut into user messages of requested sizes, so every run sends the same bytes.
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

async function listTypeScript(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await listTypeScript(path)));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) files.push(path);
  }
  return files;
}

/** Printable-ASCII source text (other characters become spaces), so a byte is a token with the
 * test model's byte tokenizer and sizes stay predictable. */
export async function readCorpus(minimumBytes: number): Promise<string> {
  const files = await listTypeScript(join(repositoryRoot, "src"));
  let corpus = "";
  while (corpus.length < minimumBytes) {
    for (const file of files) {
      corpus += (await readFile(file, "utf8")).replace(/[^\n\x20-\x7e]/g, " ");
      if (corpus.length >= minimumBytes) break;
    }
    if (files.length === 0) corpus += "const placeholder = 1;\n";
  }
  return corpus;
}

/** User messages of the given sizes in bytes, each a code-review request over the next slice. */
export function userMessages(corpus: string, sizes: readonly number[]): string[] {
  const messages: string[] = [];
  let offset = 0;
  sizes.forEach((size, index) => {
    const header = `Turn ${index + 1}: review this code and answer briefly.\n`;
    const length = Math.max(0, size - header.length);
    let slice = corpus.slice(offset, offset + length);
    if (slice.length < length) slice += corpus.slice(0, length - slice.length);
    offset = (offset + length) % Math.max(1, corpus.length);
    messages.push(header + slice);
  });
  return messages;
}
