// The git subcommands and options that run without asking (git 2.39). Left out everywhere: what
// writes (--output, branch names), runs a program (--ext-diff, --textconv, --show-signature,
// --remerge-diff, --help, which opens a configurable viewer), reads another file (-O, --contents,
// --ignore-revs-file, --exclude-from), reaches another repository (--submodule,
// --recurse-submodules, --no-index) or changes git itself (-c, -C, --git-dir, --work-tree,
// --exec-path, --config-env before the subcommand). --ignore-submodules is left out too: Spark
// sets it (neutral-git-command.ts) and a later one would undo it.
import type { OptionTable } from "./command-options.ts";

/** Before the subcommand: only these, and never `-c`, `-C` or `--git-dir`. */
export const GIT_GLOBAL_OPTIONS: ReadonlySet<string> = new Set([
  "--no-pager",
  "-P",
  "--no-optional-locks",
]);

/** Diff output options shared by diff, log and show (diff.c's parse-options table). */
const DIFF_LONG = [
  "patch no-patch raw patch-with-raw patch-with-stat stat[=] stat-width=# stat-name-width=#",
  "stat-graph-width=# stat-count=# compact-summary numstat shortstat dirstat[=] cumulative",
  "dirstat-by-file[=] summary name-only name-status check full-index binary abbrev[=] no-abbrev",
  "color[=] no-color word-diff[=] word-diff-regex= color-words[=] no-renames find-renames[=]",
  "find-copies[=] find-copies-harder break-rewrites[=] irreversible-delete diff-filter=",
  "pickaxe-all pickaxe-regex text ignore-cr-at-eol ignore-space-at-eol ignore-space-change",
  "ignore-all-space ignore-blank-lines ignore-matching-lines= inter-hunk-context=#",
  "function-context exit-code quiet no-ext-diff no-textconv src-prefix=",
  "dst-prefix= no-prefix default-prefix line-prefix= relative[=] no-relative minimal patience",
  "histogram anchored= diff-algorithm= unified=# indent-heuristic no-indent-heuristic",
  "color-moved[=] no-color-moved color-moved-ws= no-color-moved-ws ita-invisible-in-index",
  "ita-visible-in-index rename-empty no-rename-empty output-indicator-new=",
  "output-indicator-old= output-indicator-context= ws-error-highlight= full-diff",
].join(" ");
const DIFF_SHORT_FLAGS = "puszRwbWDa";
const DIFF_SHORT_VALUES = "M[#] C[#] B[#] U[#] l# S= G=";

/** Revision walking and formatting (revision.c, log-tree.c). */
const LOG_LONG = [
  "max-count=# skip=# since= after= until= before= author= committer= grep= all-match",
  "invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp",
  "merges no-merges min-parents=# max-parents=# no-min-parents no-max-parents first-parent",
  "all branches[=] tags[=] remotes[=] exclude= boundary simplify-by-decoration full-history",
  "dense sparse simplify-merges ancestry-path[=] date-order author-date-order topo-order",
  "reverse graph oneline pretty[=] format= abbrev-commit no-abbrev-commit decorate[=]",
  "no-decorate decorate-refs= decorate-refs-exclude= source relative-date date= parents children",
  "left-right cherry-pick cherry-mark cherry follow log-size no-notes encoding= expand-tabs[=]",
  "no-expand-tabs diff-merges= no-diff-merges combined-all-paths cc dd no-walk[=] do-walk",
  "use-mailmap no-use-mailmap mailmap no-mailmap clear-decorations",
].join(" ");

const diff: OptionTable = {
  shortFlags: `${DIFF_SHORT_FLAGS}0123`,
  shortValues: DIFF_SHORT_VALUES,
  long: `${DIFF_LONG} cached staged merge-base base ours theirs`,
};

const log: OptionTable = {
  shortFlags: `${DIFF_SHORT_FLAGS}imcgEFt`,
  shortValues: `${DIFF_SHORT_VALUES} n#`,
  long: `${DIFF_LONG} ${LOG_LONG}`,
  numericWord: true,
};

const status: OptionTable = {
  // Left out: -v and --verbose, which show the staged diff.
  shortFlags: "sbz",
  shortValues: "u[=]",
  long: [
    "short branch show-stash porcelain[=] long untracked-files[=] ignored[=]",
    "column[=] no-column ahead-behind no-ahead-behind renames no-renames",
    "find-renames[=]",
  ].join(" "),
};

const blame: OptionTable = {
  // Left out: -S and --contents and --ignore-revs-file read other files; --textconv.
  shortFlags: "bcltsefnpw",
  shortValues: "L= M[#] C[#]",
  long: [
    "root show-stats score-debug show-name show-number porcelain line-porcelain incremental",
    "minimal reverse first-parent progress no-progress abbrev[=] date= encoding= ignore-rev=",
    "color-lines color-by-age show-email no-textconv since=",
  ].join(" "),
};

const lsFiles: OptionTable = {
  // Left out: -X (--exclude-from), --exclude-per-directory, --recurse-submodules.
  shortFlags: "cdmoiskutvfz",
  shortValues: "x=",
  long: [
    "cached deleted modified others ignored stage killed unmerged directory no-empty-directory",
    "eol full-name abbrev[=] debug deduplicate sparse exclude= exclude-standard error-unmatch",
    "with-tree= format= resolve-undo",
  ].join(" "),
};

/** `git branch` only lists: a name would create a branch, -d/-m/-c change them. */
const branch: OptionTable = {
  shortFlags: "arvl",
  long: [
    "all remotes verbose list show-current no-color color[=] format= sort= no-column",
    "contains= no-contains= merged= no-merged= points-at= omit-empty ignore-case",
  ].join(" "),
};

/**
 * The subcommands on the list. `branch` also needs no operand (see readOnlyGitProblem);
 * `--help` is left out of every table: it starts the configured manual viewer.
 */
export const GIT_SUBCOMMAND_OPTIONS: Readonly<Record<string, OptionTable>> = {
  status,
  diff,
  log,
  show: log,
  blame,
  "ls-files": lsFiles,
  branch,
};
