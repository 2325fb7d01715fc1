// `npm run check`: the typecheck and the lint in one process over the same TypeScript programs.
// Run apart, `tsc` and typescript-eslint each built and type-checked the whole project (~27 and
// ~72 s of CPU here); given tsc's programs, the lint's type-aware rules find the types already
// checked (~66 s for both). `npm test` runs this beside vitest. `npm run typecheck` and
// `npm run lint` still run each alone.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The projects `npm run typecheck` checks, in its order: its `tsc -p` arguments, read from
 * package.json so that the two cannot drift apart.
 */
function typecheckedProjects(root: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
  };
  const script = manifest.scripts?.typecheck ?? "";
  const projects = [...script.matchAll(/\btsc -p (\S+)/g)].flatMap((match) => match[1] ?? []);
  if (projects.length === 0)
    throw new Error(`package.json's typecheck script names no "tsc -p <tsconfig>": ${script}`);
  return projects;
}

export interface CheckResult {
  name: "typecheck" | "lint";
  passed: boolean;
  /** tsc's diagnostics or ESLint's stylish report (warnings too); empty when nothing was found. */
  output: string;
  seconds: number;
}

export interface CheckOptions {
  /** The folder the tsconfigs, the lint patterns and ESLint's config are read from. */
  root?: string;
  /** Default: the projects package.json's typecheck script checks. */
  tsconfigs?: readonly string[];
  lintPatterns?: readonly string[];
}

/** Type-checks every project, then lints with typescript-eslint reading the same programs. */
export async function typecheckAndLint({
  root = ROOT,
  tsconfigs = typecheckedProjects(root),
  lintPatterns = ["."],
}: CheckOptions = {}): Promise<[CheckResult, CheckResult]> {
  const startedAt = performance.now();
  const seconds = (): number => (performance.now() - startedAt) / 1000;
  const programs = tsconfigs.map((tsconfig) => createProgram(path.resolve(root, tsconfig)));
  const diagnostics = programs.flatMap((program) => ts.getPreEmitDiagnostics(program));
  const typecheck: CheckResult = {
    name: "typecheck",
    passed: diagnostics.length === 0,
    output: ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (fileName) => fileName,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }),
    seconds: seconds(),
  };
  const eslint = new ESLint({
    cwd: root,
    // The TypeScript files only: eslint.config.js is linted without type information.
    overrideConfig: {
      files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
      languageOptions: { parserOptions: { projectService: false, programs } },
    },
  });
  const results = await eslint.lintFiles([...lintPatterns]);
  // As `eslint .` exits: warnings are printed, errors fail.
  const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
  const formatter = await eslint.loadFormatter("stylish");
  const lint: CheckResult = {
    name: "lint",
    passed: errors === 0,
    output: await formatter.format(results),
    seconds: seconds(),
  };
  return [typecheck, lint];
}

function createProgram(tsconfig: string): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (parsed === undefined) throw new Error(`${tsconfig} could not be read`);
  if (parsed.errors.length > 0)
    throw new Error(ts.formatDiagnostics(parsed.errors, ts.createCompilerHost(parsed.options)));
  return ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    ...(parsed.projectReferences === undefined
      ? {}
      : { projectReferences: parsed.projectReferences }),
  });
}

if (
  process.argv[1] !== undefined &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
) {
  const results = await typecheckAndLint();
  for (const result of results) {
    const line = `${result.name} ${result.passed ? "passed" : "FAILED"} (${result.seconds.toFixed(0)} s)`;
    // As tsc and `eslint .` do, what they found is printed; only a failure has errors in it.
    process.stdout.write(result.output === "" ? `${line}\n` : `${line}:\n${result.output}\n`);
  }
  process.exitCode = results.every((result) => result.passed) ? 0 : 1;
}
