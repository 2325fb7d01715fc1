// Real `spark serve` processes sharing one store, as replicas behind a load balancer run: each a
// child process with its own SPARK_HOME config (API keys, a short replica lease) and a scripted
// model, killed with SIGKILL when a test wants a crash.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));

export interface ServeReplica {
  url: string;
  /** The spark serve process (with --workers, the primary). */
  pid: number;
  /** Everything it wrote to stderr so far (its log). */
  readonly log: string;
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface ReplicaFleet {
  home: string;
  /** A JSONL script with these turns, written once and shared by every replica. */
  script(name: string, turns: unknown[]): string;
  start(args: string[]): Promise<ServeReplica>;
  stopAll(): Promise<void>;
}

export function createReplicaFleet(configToml: string): ReplicaFleet {
  const home = mkdtempSync(path.join(tmpdir(), "spark-replicas-"));
  writeFileSync(path.join(home, "config.toml"), configToml);
  const replicas: ServeReplica[] = [];
  return {
    home,
    script(name, turns) {
      const file = path.join(home, `${name}.jsonl`);
      writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join("\n"));
      return file;
    },
    async start(args) {
      const replica = await startReplica(home, args);
      replicas.push(replica);
      return replica;
    },
    async stopAll() {
      await Promise.all(replicas.map((replica) => replica.kill("SIGKILL")));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function startReplica(home: string, args: string[]): Promise<ServeReplica> {
  const child: ChildProcess = spawn(
    process.execPath,
    [SPARK, "serve", "--host", "127.0.0.1", "--port", "0", ...args],
    { cwd: home, env: { ...process.env, SPARK_HOME: home }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const kill = async (signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      const match = /spark serve listening on (http:\/\/\S+)/.exec(log);
      // The banner's store line: everything before it has been opened (with --workers, the
      // primary's line once every worker listens).
      const ready = args.includes("--workers")
        ? /(^|\n) {2}Workers: /.test(log)
        : log.includes("Store:");
      if (match?.[1] !== undefined && ready) {
        resolve({
          url: match[1],
          pid: child.pid ?? 0,
          get log() {
            return log;
          },
          exited,
          kill,
        });
      }
    });
    void exited.then((code) => reject(new Error(`spark serve exited (${code}):\n${log}`)));
    // A start that hangs fails with what it printed, before the test's own timeout.
    setTimeout(
      () => reject(new Error(`spark serve did not start in 100 s:\n${log}`)),
      100_000,
    ).unref();
  });
}
