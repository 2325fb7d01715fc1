// `spark doctor`: what this machine runs Spark with, and what is wrong with it (exit code 1 when
// something is: a model that cannot load or be reached, an unsupported Node, a GPU with no code).
// Only the command line is here; the checks are actions/doctor-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { DoctorFlags } from "../actions/doctor-action.ts";

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description(
      "Check Node, node-llama-cpp's backend and GPU, the decode loop, thread defaults and every configured model",
    )
    .option("--json", "print JSON")
    .option("--offline", "skip reaching upstream servers")
    .option("--timeout <ms>", "how long to wait for each upstream", "3000")
    .action(async (flags: DoctorFlags) => {
      const { runDoctor } = await import("../actions/doctor-action.ts");
      await runDoctor(flags);
    });
}
