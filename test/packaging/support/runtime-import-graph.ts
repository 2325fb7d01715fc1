// Test support for the packaging test: every file the CLI can load at run time, found by walking
// the value imports (static, re-exports and dynamic imports with a literal specifier) from an
// entry file, and the npm packages those files import. Type-only imports are erased by tsx, so
// they need neither the file nor the package at run time.
import { existsSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import ts from "typescript";

export interface RuntimeImports {
  /** Files reached, relative to the root, with `/` separators. */
  files: Set<string>;
  /** Package names imported by those files (`@scope/name` or `name`). */
  packages: Set<string>;
}

export function runtimeImportGraph(root: string, entries: string[]): RuntimeImports {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = entries.map((entry) => path.resolve(root, entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const relative = path.relative(root, file).split(path.sep).join("/");
    if (files.has(relative)) continue;
    files.add(relative);
    if (!/\.[cm]?[jt]sx?$/.test(file)) continue;
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith(".")) pending.push(resolveLocal(file, specifier));
      else if (!isBuiltin(specifier)) packages.add(packageName(specifier));
    }
  }
  return { files, packages };
}

function valueImports(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    false,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.importClause?.isTypeOnly !== true
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.isTypeOnly
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

function resolveLocal(importer: string, specifier: string): string {
  const resolved = path.resolve(path.dirname(importer), specifier);
  if (existsSync(resolved)) return resolved;
  // A `.js` specifier that names its TypeScript source.
  const typescript = resolved.replace(/\.js$/, ".ts");
  if (existsSync(typescript)) return typescript;
  throw new Error(`${importer} imports ${specifier}, which does not exist`);
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}
