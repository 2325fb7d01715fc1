// Test helper: a real redis-server listening only on a unix socket (no TCP), for checking which
// host sockets a sandboxed command can reach.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";

export async function startRedisOnSocket(socket: string): Promise<ChildProcess> {
  const redis = spawn(
    "redis-server",
    [
      "--port",
      "0",
      "--unixsocket",
      socket,
      "--unixsocketperm",
      "700",
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    { stdio: "ignore" },
  );
  for (let attempt = 0; attempt < 100 && !existsSync(socket); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (!existsSync(socket)) {
    redis.kill("SIGKILL");
    throw new Error(`redis-server did not create ${socket}`);
  }
  return redis;
}
