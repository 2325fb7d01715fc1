// `spark doctor` as a user runs it, in a child process: this machine's backend (CPU here, no
// GPU, and it says so), and each configured model checked for real: a GGUF that loads, a missing
// file, a file that is not GGUF, an upstream that answers on loopback and one that refuses.
import { copyFile, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorReport } from "../../src/cli/doctor/doctor-report.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { closedPort, runSpark, type RunResult } from "./support/run-spark-cli.ts";

function runDoctor(args: string[], home: string): Promise<RunResult> {
  return runSpark(["doctor", ...args], { SPARK_HOME: home }, home);
}

describe("spark doctor", () => {
  let home: string;
  let upstream: Server;
  let upstreamRequests: string[];
  let modelPath: string;
  let refusedPort: number;

  async function configure(models: string): Promise<void> {
    await writeFile(join(home, "config.toml"), models);
  }

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "spark-doctor-"));
    modelPath = await ensureTestModel();
    await writeFile(join(home, "notes.gguf"), "these are not weights\n");
    // An interrupted download: the header is whole, the tensor data is not.
    await copyFile(modelPath, join(home, "partial.gguf"));
    await truncate(join(home, "partial.gguf"), 200_000);
    upstreamRequests = [];
    upstream = createHttpServer((request, response) => {
      upstreamRequests.push(
        `${request.method} ${request.url} ${request.headers.authorization ?? "no key"}`,
      );
      response.writeHead(401, { "content-type": "application/json" });
      response.end('{"error":"no key"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    refusedPort = await closedPort();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
    await rm(home, { recursive: true, force: true });
  });

  const upstreamUrl = () => `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

  it("says which backend runs (the CPU here) and that a healthy setup has no problems", async () => {
    await configure(
      `default_model = "local"\n[models.local]\nengine = "llama-cpp"\npath = "${modelPath}"\n\n` +
        `[models.near]\nengine = "openai-compatible"\nbase_url = "${upstreamUrl()}"\n`,
    );
    const result = await runDoctor([], home);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Node ${process.versions.node}`);
    expect(result.stdout).toMatch(
      /^node-llama-cpp 3\.\d+\.\d+ \(llama\.cpp .+, prebuilt binaries\)$/m,
    );
    expect(result.stdout).toMatch(/^backend: CPU \(loaded in \d+ ms\)$/m);
    // CI installs Mesa's lavapipe, which `auto` refuses (test/engines/llama-cpp-lavapipe.test.ts).
    expect(result.stdout).toMatch(/no GPU in use: (none found|only software devices found)/);
    expect(result.stdout).toMatch(/^threads: \d+ by default on the CPU/m);
    expect(result.stdout).toMatch(/^decode loop: native \(.*spark_generation_loop\.node\)$/m);
    expect(result.stdout).toMatch(/^ {2}calls .*\/libllama\.v[\d.]+\.so: CPU/m);
    expect(result.stdout).toContain(
      "  opened on model local as the engine opens it (no layers on a GPU)",
    );
    expect(result.stdout).toContain(`ok   *local (llama-cpp): qwen2, 4 layers × 256, F32`);
    expect(result.stdout).toMatch(
      /ok {4}near \(openai-compatible\): http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 401/,
    );
    expect(result.stdout).toContain("No problems found.");
    // Reachability sends no credentials: a 401 proves the server is there.
    expect(upstreamRequests.at(-1)).toBe("GET /v1/models no key");
  });

  it("fails on a missing model file, a file that is not GGUF, one cut short and an unreachable upstream", async () => {
    await configure(
      `[models.gone]\nengine = "llama-cpp"\npath = "${join(home, "missing.gguf")}"\n\n` +
        `[models.partial]\nengine = "llama-cpp"\npath = "${join(home, "partial.gguf")}"\n\n` +
        `[models.notes]\nengine = "llama-cpp"\npath = "${join(home, "notes.gguf")}"\n\n` +
        `[models.away]\nengine = "openai-compatible"\nbase_url = "http://127.0.0.1:${refusedPort}/v1"\n`,
    );
    const result = await runDoctor([], home);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /FAIL {2}gone \(llama-cpp\): Model file not found: .*missing\.gguf/,
    );
    expect(result.stdout).toMatch(
      /FAIL {2}notes \(llama-cpp\): .*notes\.gguf is not a GGUF model file/,
    );
    expect(result.stdout).toMatch(
      /FAIL {2}away \(openai-compatible\): http:\/\/127\.0\.0\.1:\d+\/v1 unreachable: .*ECONNREFUSED/,
    );
    expect(result.stdout).toMatch(
      /FAIL {2}partial \(llama-cpp\): .*partial\.gguf: it is cut short: its tensors need \d+ bytes but the file has 200000/,
    );
    expect(result.stdout).toMatch(/^error: model gone: /m);
  });

  it("--offline skips upstreams and --json prints the whole report", async () => {
    await configure(
      `[models.local]\nengine = "llama-cpp"\npath = "${modelPath}"\nthreads = 1\n\n` +
        `[models.away]\nengine = "openai-compatible"\nbase_url = "http://127.0.0.1:${refusedPort}/v1"\n`,
    );
    const result = await runDoctor(["--offline", "--json"], home);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.node.version).toBe(process.versions.node);
    expect(report.llama).toMatchObject({ backend: "CPU", devices: [], nvidiaGpus: [] });
    // No CUDA library mapped: nothing to check for a JIT.
    expect(report.llama.cudaLibrary).toBeUndefined();
    expect(report.models).toEqual([
      expect.objectContaining({ name: "local", status: "ok", engine: "llama-cpp" }),
      expect.objectContaining({ name: "away", status: "skipped", detail: "--offline" }),
    ]);
    expect(report.findings).toEqual([]);
  });
});
