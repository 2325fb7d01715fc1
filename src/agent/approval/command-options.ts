// Reads a program's arguments the way getopt_long and git's parse-options do, against an
// allow-list of its options: bundled short options expanded (`-Rn` is `-R -n`), values taken
// attached (`-A3`, `-f/x`, `--file=/x`) or from the next word (`-e PATTERN`), `--` ending the
// options. Any option not on the list refuses the whole command, so nothing unlisted slips in.

/** How an option takes its value. */
type ValueRule = "none" | "required" | "number" | "optional" | "optional-number";

export interface OptionTable {
  /** Short options that take no value, one character each: "abc". */
  shortFlags: string;
  /**
   * Short options that take a value: "A# e= M[#] u[=]": `#` a number, `=` any text, in
   * brackets optional and then only attached (`-M50%`, `-uno`).
   */
  shortValues?: string;
  /** Long options, space-separated: "all color[=] block-size= max-depth=#" (see shortValues). */
  long: string;
  /** `-NUM` as one word is an option (head -5, tail -20, grep -3, git log -5). */
  numericWord?: boolean;
}

export interface ParsedArguments {
  /** Every option value, to be checked like an operand (a pattern or a path alike). */
  values: string[];
  /** Words that are not options: paths, patterns, revisions. */
  operands: string[];
}

export type OptionParse = { ok: true; parsed: ParsedArguments } | { ok: false; refused: string };

interface CompiledTable {
  shortFlags: ReadonlySet<string>;
  shortValues: ReadonlyMap<string, ValueRule>;
  long: ReadonlyMap<string, ValueRule>;
  numericWord: boolean;
}

/** A count, size or percentage: `5`, `+5`, `-5`, `1K`, `50%`, `50%/60%`, `0.5`. */
const NUMBER = /^[+-]?\d[\w%./,]*$/;
const NUMERIC_WORD = /^-\d+$/;

function ruleOf(spec: string): { name: string; rule: ValueRule } {
  if (spec.endsWith("[#]")) return { name: spec.slice(0, -3), rule: "optional-number" };
  if (spec.endsWith("[=]")) return { name: spec.slice(0, -3), rule: "optional" };
  if (spec.endsWith("=#") || (spec.length === 2 && spec.endsWith("#"))) {
    return { name: spec.slice(0, spec.endsWith("=#") ? -2 : -1), rule: "number" };
  }
  if (spec.endsWith("=")) return { name: spec.slice(0, -1), rule: "required" };
  return { name: spec, rule: "none" };
}

function specs(text: string | undefined): string[] {
  return (text ?? "").split(/\s+/).filter((spec) => spec !== "");
}

const compiled = new WeakMap<OptionTable, CompiledTable>();

function compile(table: OptionTable): CompiledTable {
  const cached = compiled.get(table);
  if (cached !== undefined) return cached;
  const shortValues = new Map<string, ValueRule>();
  for (const spec of specs(table.shortValues)) {
    const { name, rule } = ruleOf(spec);
    shortValues.set(name, rule);
  }
  const long = new Map<string, ValueRule>();
  for (const spec of specs(table.long)) {
    const { name, rule } = ruleOf(spec);
    long.set(name, rule);
  }
  const result: CompiledTable = {
    shortFlags: new Set(table.shortFlags),
    shortValues,
    long,
    numericWord: table.numericWord ?? false,
  };
  compiled.set(table, result);
  return result;
}

function valueProblem(
  rule: ValueRule,
  value: string | undefined,
  option: string,
): string | undefined {
  if (value === undefined) return `${option} is missing its value`;
  if (rule === "number" && !NUMBER.test(value)) return `${option} takes a number, not ${value}`;
  return undefined;
}

/**
 * The options and operands of `args` under `table`, or the first word that is not allowed.
 * Options and operands may mix (GNU permutes them); `-` alone is an operand (standard input).
 */
export function parseOptions(args: readonly string[], table: OptionTable): OptionParse {
  const { shortFlags, shortValues, long, numericWord } = compile(table);
  const values: string[] = [];
  const operands: string[] = [];
  const refuse = (refused: string): OptionParse => ({ ok: false, refused });
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as string;
    if (word === "--") {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (word === "-" || !word.startsWith("-")) {
      operands.push(word);
      continue;
    }
    if (numericWord && NUMERIC_WORD.test(word)) continue;
    if (word.startsWith("--")) {
      const equals = word.indexOf("=");
      const name = equals === -1 ? word.slice(2) : word.slice(2, equals);
      const rule = long.get(name);
      if (rule === undefined) return refuse(`--${name}`);
      const attached = equals === -1 ? undefined : word.slice(equals + 1);
      if (rule === "none") {
        if (attached !== undefined) return refuse(word);
        continue;
      }
      if (rule === "optional" || rule === "optional-number") {
        if (attached !== undefined) values.push(attached);
        continue;
      }
      const value = attached ?? args[++index];
      const problem = valueProblem(rule, value, `--${name}`);
      if (problem !== undefined) return refuse(problem);
      values.push(value as string);
      continue;
    }
    for (let position = 1; position < word.length; position += 1) {
      const letter = word.charAt(position);
      if (shortFlags.has(letter)) continue;
      const rule = shortValues.get(letter);
      if (rule === undefined) return refuse(`-${letter}`);
      const rest = word.slice(position + 1);
      if (rule === "optional" || rule === "optional-number") {
        // A count or a score (git -M50%, -U3) must read as one: were the program to take this
        // option without a value, it would read the rest of the word as more options.
        if (rule === "optional-number" && rest !== "" && !NUMBER.test(rest)) {
          return refuse(`-${letter} takes a number, not ${rest}`);
        }
        if (rest !== "") values.push(rest);
        break;
      }
      const value = rest !== "" ? rest : args[++index];
      const problem = valueProblem(rule, value, `-${letter}`);
      if (problem !== undefined) return refuse(problem);
      values.push(value as string);
      break;
    }
  }
  return { ok: true, parsed: { values, operands } };
}
