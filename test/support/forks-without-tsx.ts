// For a test's child process started with `node --import tsx` that opens llama.cpp: node-llama-cpp
// forks a process to test its binary before loading it, and a fork inherits process.execArgv, so
// that process would load tsx too (~0.7 s of CPU more per binary tested; `gpu: auto` tests two).
// bin/spark.js registers tsx through its API and has no such flag to pass on.

/** Drops `--import tsx` (or tsx's loader by path) from what later forks of this process inherit. */
export function forksWithoutTsx(): void {
  const kept: string[] = [];
  for (let index = 0; index < process.execArgv.length; index += 1) {
    const argument = process.execArgv[index]!;
    const next = process.execArgv[index + 1] ?? "";
    if (argument === "--import" && /(^|[/\\])tsx([/\\]|$)|^tsx$/.test(next)) index += 1;
    else if (!/^--import=.*\btsx\b/.test(argument)) kept.push(argument);
  }
  process.execArgv.splice(0, process.execArgv.length, ...kept);
}
