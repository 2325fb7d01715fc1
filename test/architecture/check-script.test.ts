// scripts/check.ts, which `npm test` runs beside vitest: one process type-checks the projects and
// lints with the house's ESLint config over the same TypeScript programs. Each check still fails
// on its own kind of problem (a type error; a floating promise, which needs the types), and both
// pass on clean code. A small project in a temporary folder stands in for the repository; its
// package.json's typecheck script names the project checked, as the repository's does.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { typecheckAndLint } from "../../scripts/check.ts";

const HOUSE_CONFIG = fileURLToPath(new URL("../../eslint.config.js", import.meta.url));

function project(
  files: Record<string, string>,
  typecheck = "tsc -p tsconfig.json --noEmit",
): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "spark-check-"));
  const compilerOptions = { strict: true, noEmit: true, target: "ES2023", module: "NodeNext" };
  writeFileSync(
    path.join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...compilerOptions, types: [] }, include: ["src"] }),
  );
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ scripts: { typecheck } }));
  writeFileSync(
    path.join(root, "eslint.config.js"),
    `export { default } from ${JSON.stringify(HOUSE_CONFIG)};\n`,
  );
  mkdirSync(path.join(root, "src"));
  for (const [name, content] of Object.entries(files))
    writeFileSync(path.join(root, "src", name), content);
  return root;
}

describe("the one-process typecheck and lint", { timeout: 60_000 }, () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  /** Checks a project of `files` in `src/`, removed after the file's tests. */
  function check(files: Record<string, string>, typecheck?: string) {
    const root = project(files, typecheck);
    roots.push(root);
    return typecheckAndLint({ root });
  }

  it("fails the typecheck on a type error and the lint on a floating promise", async () => {
    const [typecheck, lint] = await check({
      "broken.ts":
        'export const count: number = "three";\n' +
        "async function later(): Promise<void> {}\n" +
        "export function start(): void {\n  later();\n}\n",
    });
    expect(typecheck.passed).toBe(false);
    expect(typecheck.output).toMatch(/broken\.ts\(1,14\): error TS2322/);
    expect(lint.passed).toBe(false);
    expect(lint.output).toContain("@typescript-eslint/no-floating-promises");
    expect(lint.output).toContain("broken.ts");
  });

  it("passes clean code", async () => {
    const [typecheck, lint] = await check({
      "clean.ts":
        "export const count: number = 3;\n" +
        "async function later(): Promise<void> {}\n" +
        "export async function start(): Promise<void> {\n  await later();\n}\n",
    });
    expect(typecheck).toMatchObject({ passed: true, output: "" });
    expect(lint.passed, lint.output).toBe(true);
  });

  it("refuses a typecheck script that names no project, rather than checking none", async () => {
    await expect(
      check({ "clean.ts": "export const count = 3;\n" }, "tsc --noEmit"),
    ).rejects.toThrow(/typecheck script names no "tsc -p <tsconfig>"/);
  });
});
