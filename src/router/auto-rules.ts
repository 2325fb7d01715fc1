// Evaluates the `auto` rule set against one request's signals: the first rule whose conditions
// all hold picks the route, and the decision carries one line saying why (with the evidence).
import type { AutoRuleConfig } from "../config/config-types.ts";
import type { RouteSignals } from "./route-signals.ts";

export interface AutoDecision {
  route: string;
  /** One line for people, e.g. `security-sensitive work: mentions "auth"`. */
  reason: string;
  /** Index of the rule that matched; undefined when none did. */
  ruleIndex: number | undefined;
}

interface CompiledRule {
  rule: AutoRuleConfig;
  keywords: RegExp | undefined;
  paths: RegExp[];
}

export class AutoRules {
  private readonly compiled: CompiledRule[];

  constructor(
    rules: readonly AutoRuleConfig[],
    private readonly defaultRoute: string,
  ) {
    this.compiled = rules.map((rule) => ({
      rule,
      keywords:
        rule.keywords === undefined
          ? undefined
          : new RegExp(`(?<![A-Za-z0-9])(${rule.keywords.map(keywordPattern).join("|")})`, "i"),
      paths: (rule.paths ?? []).map(globToRegExp),
    }));
  }

  decide(signals: RouteSignals): AutoDecision {
    for (const [index, compiled] of this.compiled.entries()) {
      const evidence = matchRule(compiled, signals);
      if (evidence !== undefined) {
        return {
          route: compiled.rule.route,
          reason: `${compiled.rule.reason}: ${evidence}`,
          ruleIndex: index,
        };
      }
    }
    return { route: this.defaultRoute, reason: "no auto rule matched", ruleIndex: undefined };
  }
}

/** The evidence of a rule holding, joined into one phrase; undefined when a condition fails. */
function matchRule(compiled: CompiledRule, signals: RouteSignals): string | undefined {
  const { rule } = compiled;
  const evidence: string[] = [];
  if (compiled.keywords !== undefined) {
    const match = compiled.keywords.exec(signals.instruction);
    if (match === null) return undefined;
    evidence.push(`mentions "${match[1]?.toLowerCase()}"`);
  }
  if (compiled.paths.length > 0) {
    const path = signals.paths.find((candidate) =>
      compiled.paths.some((glob) => glob.test(candidate)),
    );
    if (path === undefined) return undefined;
    evidence.push(`touches ${path}`);
  }
  if (rule.minFiles !== undefined) {
    if (signals.paths.length < rule.minFiles) return undefined;
    evidence.push(`${signals.paths.length} files named (≥ ${rule.minFiles})`);
  }
  if (rule.minContextTokens !== undefined) {
    if (signals.contextTokens < rule.minContextTokens) return undefined;
    evidence.push(`~${signals.contextTokens} tokens (≥ ${rule.minContextTokens})`);
  }
  if (rule.maxInstructionChars !== undefined) {
    if (signals.instruction.length > rule.maxInstructionChars) return undefined;
    evidence.push(`${signals.instruction.length} chars (≤ ${rule.maxInstructionChars})`);
  }
  if (rule.completion !== undefined) {
    if (signals.completion !== rule.completion) return undefined;
    evidence.push(rule.completion ? "no tools, small output budget" : "not a completion");
  }
  return evidence.length === 0 ? "always" : evidence.join(", ");
}

/**
 * `**` spans folders, `*` and `?` stay inside one; a glob matches at any folder depth
 * (`Dockerfile` matches `deploy/Dockerfile`), since instructions name paths loosely.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index] ?? "";
    if (character === "*" && glob[index + 1] === "*") {
      const slashAfter = glob[index + 2] === "/";
      source += slashAfter ? "(?:.*/)?" : ".*";
      index += slashAfter ? 2 : 1;
    } else if (character === "*") source += "[^/]*";
    else if (character === "?") source += "[^/]";
    else source += escapeRegExp(character);
  }
  return new RegExp(`^(?:.*/)?${source}$`, "i");
}

/** A keyword is a whole word (a plural "s" allowed); a trailing `*` makes it a prefix (`auth*`). */
function keywordPattern(keyword: string): string {
  if (keyword.endsWith("*")) return escapeRegExp(keyword.slice(0, -1));
  return `${escapeRegExp(keyword)}s?(?![A-Za-z0-9])`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
