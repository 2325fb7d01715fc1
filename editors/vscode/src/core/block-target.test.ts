import { describe, expect, it } from "vitest";
import { findBlockTarget } from "./block-target.ts";

/** A file with three functions; `total` (lines 6-10) sits in the middle. */
const documentText = [
  'import { readFile } from "node:fs/promises";', // 0
  "",
  "export function first(items) {", // 2
  "  return items[0];",
  "}",
  "",
  "export function total(items) {", // 6
  "  let sum = 0;",
  "  for (const item of items) sum += item;",
  "  return sum;",
  "}", // 10
  "",
  "export async function load(path) {", // 12
  '  const text = await readFile(path, "utf8");',
  "  return JSON.parse(text);",
  "}", // 15
  "",
].join("\n");

describe("findBlockTarget", () => {
  it("matches a block that rewrites a function in the middle of the file to that function's lines", () => {
    const block = [
      "export function total(items) {",
      "  let sum = 0;",
      "  for (const item of items) {",
      "    sum += Number(item);",
      "  }",
      "  return sum;",
      "}",
    ].join("\n");
    const target = findBlockTarget(documentText, block, 0);
    expect(target).toMatchObject({ startLine: 6, endLine: 11 });
  });

  it("matches a re-indented block (the reply dropped the file's indentation)", () => {
    const block =
      "function total(items) {\nlet sum = 0;\nfor (const item of items) sum += item;\nreturn sum;\n}\n";
    const indented = documentText
      .split("\n")
      .map((line) => (line === "" ? line : `    ${line}`))
      .join("\n");
    expect(
      findBlockTarget(indented, block.replace("function total", "export function total"), 0),
    ).toMatchObject({
      startLine: 6,
      endLine: 11,
    });
  });

  it("finds nothing for an unrelated block, even one sharing braces and blank lines", () => {
    const block = ["function greet(name) {", "", '  console.log("hello " + name);', "}", ""].join(
      "\n",
    );
    expect(findBlockTarget(documentText, block, 8)).toBeUndefined();
  });

  it("chooses the copy nearest the cursor when the block matches two places equally", () => {
    const twice = [
      "function sumA(items) {", // 0
      "  let total = 0;",
      "  for (const item of items) total += item;",
      "  return total;",
      "}",
      "",
      "function sumB(items) {", // 6
      "  let total = 0;",
      "  for (const item of items) total += item;",
      "  return total;",
      "}",
    ].join("\n");
    const block =
      "  let total = 0;\n  for (const item of items) total += Number(item);\n  return total;";
    expect(findBlockTarget(twice, block, 9)).toMatchObject({ startLine: 7, endLine: 10 });
    expect(findBlockTarget(twice, block, 0)).toMatchObject({ startLine: 1, endLine: 4 });
    expect(findBlockTarget(twice, block, 2)).toMatchObject({ startLine: 1, endLine: 4 });
  });

  it("takes a block that adds lines to the function it rewrites, whole", () => {
    const block = [
      "export function total(items) {",
      "  if (!Array.isArray(items)) {",
      '    throw new TypeError("items must be an array");',
      "  }",
      "  let sum = 0;",
      "  for (const item of items) sum += item;",
      "  return sum;",
      "}",
    ].join("\n");
    expect(findBlockTarget(documentText, block, 0)).toMatchObject({ startLine: 6, endLine: 11 });
  });
});

describe("findBlockTarget at a rewritten edge", () => {
  it("keeps a changed first line inside the lines replaced (it would be left behind, doubled)", () => {
    const block = [
      "export function total(items: number[]) {",
      "  let sum = 0;",
      "  for (const item of items) sum += item;",
      "  return sum;",
      "}",
    ].join("\n");
    expect(findBlockTarget(documentText, block, 0)).toMatchObject({ startLine: 6, endLine: 11 });
  });
});
