// The inline review tests' shared file and proposal, and what they read off the page: the code
// lenses over each pending change and the editor's text.
import type { Page } from "playwright-core";
import { visibleText } from "./workbench.ts";

export const ORIGINAL =
  "function sum(items) {\n  let total = 0;\n  for (const item of items) total += item;\n  return total;\n}\n";
/** Two changes (lines 1 and 4) with unchanged lines between them: two hunks. */
export const REWRITTEN =
  "function sum(items = []) {\n  let total = 0;\n  for (const item of items) total += item;\n  return total | 0;\n}";

export const lenses = (page: Page, title: string) =>
  page.locator(".contentWidgets .codelens-decoration a", { hasText: title });
export const editorText = (page: Page): Promise<string> =>
  page.locator(".monaco-editor .view-lines").first().innerText().then(visibleText);
