// The default `auto` rules by table: each row a request and the route and reason it must get.
import { describe, expect, it } from "vitest";
import type { EngineRequest } from "../engines/engine.ts";
import { AutoRules, globToRegExp } from "./auto-rules.ts";
import { DEFAULT_AUTO_ROUTE, DEFAULT_AUTO_RULES } from "./default-auto-rules.ts";
import { pathsIn, routeSignals } from "./route-signals.ts";

const rules = new AutoRules(DEFAULT_AUTO_RULES, DEFAULT_AUTO_ROUTE);
const tools = [{ name: "read_file", parameters: { type: "object" } }];

function ask(instruction: string, extra: Partial<EngineRequest> = {}): EngineRequest {
  return { messages: [{ role: "user", content: instruction }], tools, ...extra };
}

const longTask = `Implement the feature described below. ${"Keep the existing behaviour and tests. ".repeat(20)}`;

const table: Array<[string, EngineRequest, string, RegExp]> = [
  [
    "short targeted instruction",
    ask("rename foo to bar in utils.ts"),
    "fast",
    /short targeted instruction: 29 chars/,
  ],
  [
    "inline completion (no tools, small budget)",
    {
      messages: [{ role: "user", content: "function add(a, b) {" }],
      sampling: { maxOutputTokens: 64 },
    },
    "fast",
    /inline completion/,
  ],
  [
    "completion with a prediction",
    ask("x", { prediction: "const a = 1;" }),
    "fast",
    /inline completion/,
  ],
  [
    "auth language",
    ask("fix the login check so expired sessions are refused"),
    "deep",
    /security-sensitive work: mentions "login"/,
  ],
  [
    "crypto language",
    ask("switch the token hashing to a constant-time compare and encrypt at rest"),
    "deep",
    /mentions "encrypt"/,
  ],
  [
    "vulnerability language",
    ask("is there an SQL injection in the search endpoint?"),
    "deep",
    /mentions "injection"/,
  ],
  ["permissions", ask("chmod the deploy script"), "deep", /mentions "chmod"/],
  [
    "a workflow file",
    ask("bump node in .github/workflows/ci.yml"),
    "deep",
    /security-sensitive files: touches \.github\/workflows\/ci\.yml/,
  ],
  ["a Dockerfile", ask("add curl to the Dockerfile"), "deep", /touches Dockerfile/],
  [
    "a nested Dockerfile",
    ask("update deploy/Dockerfile base image"),
    "deep",
    /touches deploy\/Dockerfile/,
  ],
  [
    "a .pem file",
    ask("replace certs/server.pem with the new one"),
    "deep",
    /touches certs\/server\.pem/,
  ],
  [
    "many files",
    ask("update src/a.ts, src/b.ts, src/c.ts and src/d.ts to the new API"),
    "deep",
    /task names many files: 4 files named/,
  ],
  [
    "a plan",
    ask("write a plan for splitting the gateway"),
    "deep",
    /asks for a plan: mentions "plan"/,
  ],
  [
    "context over threshold",
    ask("continue", {
      messages: [
        { role: "system", content: "x".repeat(140_000) },
        { role: "user", content: "continue" },
      ],
    }),
    "deep",
    /context over threshold: ~35\d\d\d tokens/,
  ],
  ["a long unrecognised instruction", ask(longTask), "deep", /no auto rule matched/],
  [
    "a file touched by this turn's tool call",
    {
      messages: [
        { role: "user", content: "fix the build" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "1", name: "edit", arguments: '{"path":".github/workflows/release.yml"}' },
          ],
        },
      ],
      tools,
    },
    "deep",
    /touches .*release\.yml/,
  ],
  [
    "planet is not plan language (whole word)",
    ask("rename planet to world in a.ts"),
    "fast",
    /short targeted/,
  ],
  ["plans is (a plural)", ask("compare the plans"), "deep", /asks for a plan: mentions "plans"/],
  [
    "author is auth (prefix match, on purpose)",
    ask("fix the author field"),
    "deep",
    /mentions "auth"/,
  ],
];

describe("default auto rules", () => {
  it.each(table)("%s", (_name, request, route, reason) => {
    const decision = rules.decide(routeSignals(request));
    expect(decision.route).toBe(route);
    expect(decision.reason).toMatch(reason);
  });

  it("user rules replace the defaults and are evaluated in order", () => {
    const custom = new AutoRules(
      [
        { route: "review", reason: "asks for review", keywords: ["review"] },
        { route: "fast", reason: "everything else" },
      ],
      "deep",
    );
    expect(custom.decide(routeSignals(ask("review my auth change"))).route).toBe("review");
    expect(custom.decide(routeSignals(ask("add auth"))).reason).toBe("everything else: always");
  });

  it("all conditions of a rule must hold", () => {
    const custom = new AutoRules(
      [{ route: "deep", reason: "big edit of tests", paths: ["test/**"], minFiles: 2 }],
      "fast",
    );
    expect(custom.decide(routeSignals(ask("fix test/a.test.ts"))).route).toBe("fast");
    expect(custom.decide(routeSignals(ask("fix test/a.test.ts and src/a.ts"))).reason).toBe(
      "big edit of tests: touches test/a.test.ts, 2 files named (≥ 2)",
    );
  });
});

describe("paths and globs", () => {
  it.each([
    ["edit src/a.ts and README.md.", ["src/a.ts", "README.md"]],
    ["see https://example.com/a.html", []],
    ["e.g. this, node 20.19", []],
    ["the `Makefile` and ./scripts/run", ["Makefile", "scripts/run"]],
  ])("pathsIn(%j)", (text, expected) => {
    expect(pathsIn(text)).toEqual(expected);
  });

  it.each([
    [".github/workflows/**", ".github/workflows/ci.yml", true],
    [".github/workflows/**", "docs/workflows.md", false],
    ["*.pem", "a/b/c.pem", true],
    ["*.pem", "a.pem.txt", false],
    ["Dockerfile", "deploy/Dockerfile", true],
    ["docker-compose*.yml", "docker-compose.prod.yml", true],
  ])("%s matches %s: %s", (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });
});
