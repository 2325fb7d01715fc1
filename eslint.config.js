// Lint: typescript-eslint with type information, so the promise rules can see floating promises.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules",
      "dist",
      "bench/results",
      // The eval tasks are fixture repositories (some deliberately buggy), run by node alone.
      "evals/tasks",
      "coverage",
      "**/*.gguf",
      "bin",
      ".spark-test",
      "web/dist",
      "test-results",
      "editors/vscode/*",
      "!editors/vscode/src",
      "editors/vscode/src/*",
      "!editors/vscode/src/core",
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  { files: ["eslint.config.js"], ...tseslint.configs.disableTypeChecked },
);
