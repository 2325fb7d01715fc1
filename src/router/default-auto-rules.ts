// The `auto` rules Spark ships with; `[[router.rules]]` in config replaces them. Order matters:
// security first (it must never land on the fast model by accident), then the cheap fast cases.
import type { AutoRuleConfig } from "../config/config-types.ts";

export const SECURITY_KEYWORDS = [
  "auth*",
  "oauth",
  "login",
  "password*",
  "passwd",
  "credential*",
  "secret*",
  "api key",
  "jwt",
  "session cookie",
  "crypto*",
  "encrypt*",
  "decrypt*",
  "cipher*",
  "signature*",
  "certificate*",
  "tls",
  "ssl",
  "permission*",
  "privilege*",
  "chmod",
  "chown",
  "sudo",
  "setuid",
  "rbac",
  "acl",
  "exploit*",
  "vulnerab*",
  "cve-*",
  "injection",
  "xss",
  "csrf",
  "ssrf",
  "sanitiz*",
  "security",
];

export const SECURITY_PATHS = [
  ".github/workflows/**",
  "Dockerfile",
  "Containerfile",
  "docker-compose*.yml",
  "*.pem",
  "*.key",
  "*.crt",
  "*.p12",
  ".env",
  ".env.*",
  "**/.ssh/**",
  "**/auth/**",
  "sudoers",
];

export const PLAN_KEYWORDS = [
  "plan",
  "design",
  "architect*",
  "refactor the",
  "migrate",
  "across the codebase",
  "every file",
  "step by step",
];

export const DEFAULT_AUTO_RULES: AutoRuleConfig[] = [
  { route: "deep", reason: "security-sensitive files", paths: SECURITY_PATHS },
  { route: "deep", reason: "security-sensitive work", keywords: SECURITY_KEYWORDS },
  { route: "fast", reason: "inline completion", completion: true },
  { route: "deep", reason: "context over threshold", minContextTokens: 32_000 },
  { route: "deep", reason: "task names many files", minFiles: 4 },
  { route: "deep", reason: "asks for a plan", keywords: PLAN_KEYWORDS },
  { route: "fast", reason: "short targeted instruction", maxInstructionChars: 600 },
];

/** Where `auto` goes when no rule holds: a long instruction none of the rules recognised. */
export const DEFAULT_AUTO_ROUTE = "deep";
