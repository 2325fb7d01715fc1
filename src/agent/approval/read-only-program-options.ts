// The options each read-only program may take without asking (GNU coreutils 9, grep 3, ripgrep
// 13-14, debianutils which). What is left out follows links out of the workspace, reads a list
// of names or patterns from another file, runs a program, writes, or waits: grep -R and -f,
// ls -L and -H, du -L, -D and --files0-from, tail -f and --pid, rg -L, --pre, -z and --ignore-file.
import type { OptionTable } from "./command-options.ts";

const ls: OptionTable = {
  // Left out: -H, -L (--dereference*): they list what a link points at.
  shortFlags: "abcdfghiklmnopqrstuvxABCDFGNQRSUXZ1",
  shortValues: "w# I= T#",
  long: [
    "all almost-all author block-size= escape ignore-backups classify[=] color[=] context",
    "directory dired file-type format= full-time group-directories-first no-group hide=",
    "hide-control-chars human-readable hyperlink[=] ignore= indicator-style= inode kibibytes",
    "literal numeric-uid-gid quote-name quoting-style= recursive reverse show-control-chars si",
    "size sort= tabsize=# time= time-style= width=# zero help version",
  ].join(" "),
};

const cat: OptionTable = {
  shortFlags: "benstuvAET",
  long: "number-nonblank number squeeze-blank show-nonprinting show-ends show-tabs show-all help version",
};

const head: OptionTable = {
  shortFlags: "qvz",
  shortValues: "c# n#",
  long: "bytes=# lines=# quiet silent verbose zero-terminated help version",
  numericWord: true,
};

const tail: OptionTable = {
  // Left out: -f, -F, --follow, --retry, --pid, -s: they wait for more instead of ending.
  shortFlags: "qvz",
  shortValues: "c# n#",
  long: "bytes=# lines=# quiet silent verbose zero-terminated help version",
  numericWord: true,
};

const wc: OptionTable = {
  // Left out: --files0-from reads the names to count from a file.
  shortFlags: "cmlLw",
  long: "bytes chars lines max-line-length words total= help version",
};

const nl: OptionTable = {
  shortFlags: "p",
  shortValues: "b= d= f= h= i# l# n= s= v# w#",
  long: [
    "body-numbering= section-delimiter= footer-numbering= header-numbering= line-increment=#",
    "join-blank-lines=# number-format= no-renumber number-separator= starting-line-number=#",
    "number-width=# help version",
  ].join(" "),
};

const stat: OptionTable = {
  // Left out: -L, --dereference: the status of what a link points at.
  shortFlags: "ft",
  shortValues: "c=",
  long: "file-system format= printf= terse cached= help version",
};

const du: OptionTable = {
  // Left out: -L, -H, -D (--dereference*) follow links; --files0-from, -X read other files.
  shortFlags: "0abchklmsxPS",
  shortValues: "d# t= B=",
  long: [
    "all apparent-size block-size= bytes total max-depth=# human-readable inodes count-links",
    "no-dereference null separate-dirs si summarize threshold= time[=] time-style= exclude=",
    "one-file-system help version",
  ].join(" "),
};

const grep: OptionTable = {
  // Left out: -R (--dereference-recursive) follows links; -f (--file), --exclude-from read
  // patterns from another file; -X picks an undocumented matcher.
  shortFlags: "0123456789EFGHIPTUVabchiLlnoqrsvwxyZz",
  shortValues: "A# B# C# D= d= e= m#",
  long: [
    "basic-regexp extended-regexp fixed-regexp fixed-strings perl-regexp after-context=#",
    "before-context=# binary-files= byte-offset context=# color[=] colour[=] count devices=",
    "directories= exclude= exclude-dir= files-with-matches files-without-match help include=",
    "ignore-case no-ignore-case initial-tab label= line-buffered line-number line-regexp",
    "max-count=# no-filename no-group-separator group-separator= no-messages null null-data",
    "only-matching quiet recursive regexp= invert-match silent text binary version",
    "with-filename word-regexp",
  ].join(" "),
};

const rg: OptionTable = {
  // Left out: -L (--follow) follows links; --pre, --pre-glob, -z (--search-zip) and
  // --hostname-bin run programs; -f (--file), --ignore-file read other files.
  shortFlags: "cFHhIilnNopqsSuUvVwx0a.",
  shortValues: "A# B# C# d# e= E= g= j# m# M# r= t= T=",
  long: [
    "after-context=# before-context=# context=# binary block-buffered byte-offset",
    "case-sensitive color= colors= column context-separator= count count-matches crlf debug",
    "dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= files",
    "files-with-matches files-without-match fixed-strings glob= glob-case-insensitive heading",
    "no-heading help hidden iglob= ignore-case include-zero invert-match json line-buffered",
    "line-number line-regexp max-columns=# max-columns-preview max-count=# max-depth=#",
    "max-filesize= mmap no-mmap multiline multiline-dotall no-config no-ignore no-ignore-dot",
    "no-ignore-exclude no-ignore-files no-ignore-global no-ignore-parent no-ignore-vcs",
    "no-line-number no-messages no-filename null null-data one-file-system only-matching",
    "passthru path-separator= pcre2 pretty quiet regex-size-limit= regexp= replace= smart-case",
    "sort= sortr= stats text threads=# trim type= type-not= type-list unrestricted vimgrep",
    "with-filename word-regexp version",
  ].join(" "),
};

const which: OptionTable = { shortFlags: "as", long: "" };

/** Programs whose arguments are read as options and operands (echo, find, git have their own). */
export const PROGRAM_OPTIONS: Readonly<Record<string, OptionTable>> = {
  ls,
  cat,
  head,
  tail,
  wc,
  nl,
  stat,
  du,
  grep,
  rg,
  which,
};
