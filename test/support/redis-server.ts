// A redis-server of the test's own on a loopback port, with nothing persisted (--save "",
// --appendonly no): started, killed and restarted by the tests that share state through Redis.
// Never a system service. Without redis-server the tests skip, saying why; under CI=true they fail.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

const REDIS_SERVER = process.env.SPARK_TEST_REDIS_SERVER ?? "redis-server";

/** Why the Redis tests cannot run here, or undefined when they can. Throws under CI=true. */
export function redisMissingReason(): string | undefined {
  const probe = spawnSync(REDIS_SERVER, ["--version"], { encoding: "utf8" });
  if (probe.status === 0) return undefined;
  const reason = `${REDIS_SERVER} is not installed (apt-get install redis-server)`;
  if (process.env.CI === "true")
    throw new Error(`The Redis store tests must run in CI, but ${reason}.`);
  return reason;
}

export interface RedisServer {
  readonly port: number;
  /** The running server's process id (benchmarks read its CPU time). */
  readonly pid: number | undefined;
  readonly url: string;
  /** SIGKILL: the server is gone at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child = await launch(port);
  const exit = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };
  return {
    port,
    get pid() {
      return child.pid;
    },
    url: `redis://127.0.0.1:${port}`,
    kill: () => exit("SIGKILL"),
    async restart() {
      await exit("SIGKILL");
      child = await launch(port);
    },
    stop: () => exit("SIGKILL"),
  };
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--loglevel",
      "notice",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start on ${port}: ${output}`)),
      10_000,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  return child;
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}
