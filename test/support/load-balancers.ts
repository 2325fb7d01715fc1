// haproxy and nginx of the test's own, in front of `spark serve` replicas on loopback, started in
// the foreground from a config written to a temporary folder (never the system services). Without
// them the tests skip, saying why; under CI=true they fail (.ci/run installs both).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** The tool's command: on PATH, else Debian's /usr/sbin (not on a plain user's PATH). */
function commandOf(tool: "haproxy" | "nginx"): string {
  if (spawnSync(tool, ["-v"]).status === 0) return tool;
  return `/usr/sbin/${tool}`;
}

/** Why `tool` cannot run here, or undefined when it can. Throws under CI=true. */
export function loadBalancerMissingReason(tool: "haproxy" | "nginx"): string | undefined {
  const probe = spawnSync(commandOf(tool), ["-v"], { encoding: "utf8" });
  if (probe.status === 0) return undefined;
  const reason = `${tool} is not installed (apt-get install ${tool})`;
  if (process.env.CI === "true")
    throw new Error(`The load balancer tests must run in CI, but ${reason}.`);
  return reason;
}

/** The haproxy config docs/scale-out.md gives (health checks on /readyz, redispatch, retry-on),
 * for a frontend on `port` and replicas on `replicaPorts`. */
export function haproxyReplicasConfig(port: number, replicaPorts: number[]): string {
  return `global
  maxconn 1024

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  # A replica that is draining answers 503 (server_shutting_down) until the health check takes it
  # out; one that has exited refuses the connection: both are retried on another replica.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response 503

frontend spark
  bind 127.0.0.1:${port}
  default_backend spark_replicas

backend spark_replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  default-server inter 500ms fall 1 rise 2
${replicaPorts.map((replicaPort, index) => `  server replica${index} 127.0.0.1:${replicaPort} check`).join("\n")}
`;
}

export interface LoadBalancer {
  url: string;
  /** What it wrote to stderr (its errors and, for haproxy, its server state changes). */
  readonly log: string;
  stop(): Promise<void>;
}

/** haproxy -db (foreground) with `config`, whose frontend binds `port`. */
export function startHaproxy(config: string, port: number): Promise<LoadBalancer> {
  const folder = mkdtempSync(path.join(tmpdir(), "spark-haproxy-"));
  const file = path.join(folder, "haproxy.cfg");
  writeFileSync(file, config);
  return launch(spawn(commandOf("haproxy"), ["-db", "-f", file]), port, folder);
}

/** nginx in the foreground with `httpBlock` as its http { } contents, pid and logs in a temporary
 * prefix. */
export function startNginx(httpBlock: string, port: number): Promise<LoadBalancer> {
  const folder = mkdtempSync(path.join(tmpdir(), "spark-nginx-"));
  const file = path.join(folder, "nginx.conf");
  writeFileSync(
    file,
    [
      "worker_processes 1;",
      "daemon off;",
      `pid ${folder}/nginx.pid;`,
      "error_log stderr warn;",
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      `  client_body_temp_path ${folder}/body;`,
      `  proxy_temp_path ${folder}/proxy;`,
      `  fastcgi_temp_path ${folder}/fastcgi;`,
      `  uwsgi_temp_path ${folder}/uwsgi;`,
      `  scgi_temp_path ${folder}/scgi;`,
      httpBlock,
      "}",
      "",
    ].join("\n"),
  );
  return launch(spawn(commandOf("nginx"), ["-p", folder, "-c", file]), port, folder);
}

async function launch(child: ChildProcess, port: number, folder: string): Promise<LoadBalancer> {
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the load balancer did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    get log() {
      return log;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
