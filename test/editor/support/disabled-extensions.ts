// The built-in extensions the editor tests' code-server starts with off: none of them is part of
// what a test exercises, and each costs every window CPU (git's repository scan, GitHub's
// authentication, task detectors, debuggers) before Spark's own activation (onStartupFinished)
// runs. Language support the tests type into stays on: JavaScript's grammar, JSON (settings.json)
// and Emmet (it binds Tab). TypeScript's language features are on only for a suite that asks for
// them (the Problems the quick-edit tests count come from its server): elsewhere its two tsserver
// processes cost each window ~2.5 s of CPU as a file opens, and its type acquisition ran
// `npm install @types/...` against the registry during the tests.
const DISABLED_BUILT_IN_EXTENSIONS = [
  // Source control: activated at startup ("*") in every window, scans the workspace folder.
  "vscode.git",
  "vscode.git-base",
  "vscode.github",
  "vscode.github-authentication",
  "vscode.microsoft-authentication",
  "vscode.merge-conflict",
  // Chat: off by setting (chat.disableAIFeatures), and its views still contribute to the window.
  "GitHub.copilot-chat",
  // Debugging and tasks: no test debugs or runs a task.
  "vscode.debug-auto-launch",
  "vscode.debug-server-ready",
  "ms-vscode.js-debug",
  "ms-vscode.js-debug-companion",
  "ms-vscode.vscode-js-profile-table",
  "vscode.npm",
  "vscode.grunt",
  "vscode.gulp",
  "vscode.jake",
  // Editing extension manifests (activates on any JSON file) and other files no test opens.
  "vscode.extension-editing",
  "vscode.markdown-language-features",
  "vscode.markdown-math",
  "vscode.mermaid-markdown-features",
  "vscode.ipynb",
  "vscode.builtin-notebook-renderers",
  "vscode.media-preview",
  "vscode.simple-browser",
  "vscode.references-view",
  "vscode.tunnel-forwarding",
  "vscode.terminal-suggest",
  "vscode.html-language-features",
  "vscode.css-language-features",
  "vscode.php-language-features",
];

/** What a suite's code-server starts with beyond the minimum. */
export interface BuiltInExtensionChoice {
  /** TypeScript and JavaScript language features (tsserver): Problems, completions. */
  typescript?: boolean;
}

/**
 * The environment that starts code-server without those extensions: VS Code's server leaves the
 * built-in extensions named in VSCODE_SKIP_BUILTIN_EXTENSIONS out of its scan, so no window sees
 * them. (Its --disable-extension flag does not reach a browser window: the web workbench decides
 * enablement itself.) None are left out with SPARK_EDITOR_ALL_EXTENSIONS=1, to compare the costs
 * side by side or to see whether a failing test depends on one of them.
 */
export function disabledExtensionsEnvironment(
  choice: BuiltInExtensionChoice = {},
): NodeJS.ProcessEnv {
  if (process.env.SPARK_EDITOR_ALL_EXTENSIONS === "1") return {};
  const skipped = [
    ...DISABLED_BUILT_IN_EXTENSIONS,
    ...(choice.typescript === true ? [] : ["vscode.typescript-language-features"]),
  ];
  return { VSCODE_SKIP_BUILTIN_EXTENSIONS: skipped.join(",") };
}
