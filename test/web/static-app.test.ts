// `spark serve` serves the browser app at `/`: a real gateway over loopback, a built app folder,
// and the headers that keep the page safe (CSP without inline script, nosniff).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { serveStaticApp } from "../../src/gateway/http/static-app.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";

describe("the browser app over a real gateway", () => {
  let harness: GatewayHarness;
  beforeAll(async () => {
    harness = await startGatewayHarness(createSyntheticEngine(), { apiKeys: ["secret-key"] });
  });
  afterAll(() => harness.close());

  it("serves index.html at / without a key, with a strict Content-Security-Policy", async () => {
    const response = await fetch(`${harness.url}/`);
    // A checkout that has not run `npm install` yet answers 503 with what to run.
    expect([200, 503]).toContain(response.status);
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe-inline");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("tells the page a key is needed, and still guards the API", async () => {
    const config = await fetch(`${harness.url}/app-config.json`);
    expect(await config.json()).toEqual({ apiKeyRequired: true });
    expect((await fetch(`${harness.url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${harness.url}/metrics`)).status).toBe(401);
  });
});

describe("serveStaticApp", () => {
  let server: Server;
  let url: string;
  let directory: string;
  beforeAll(async () => {
    directory = mkdtempSync(path.join(os.tmpdir(), "spark-web-"));
    mkdirSync(path.join(directory, "assets"));
    writeFileSync(path.join(directory, "index.html"), "<!doctype html><title>app</title>");
    writeFileSync(path.join(directory, "assets", "index-abc.js"), "console.log(1);");
    writeFileSync(path.join(directory, "assets", "index-abc.css"), "body{}");
    writeFileSync(path.join(directory, ".secret.json"), "{}");
    writeFileSync(path.join(os.tmpdir(), "outside.js"), "nope");
    server = createServer((request, response) => {
      const urlPath = new URL(request.url ?? "/", "http://localhost").pathname;
      serveStaticApp(request, response, urlPath, { directory, apiKeyRequired: false })
        .then((served) => {
          if (!served) response.writeHead(404).end();
        })
        .catch(() => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers each file with its content type and caching", async () => {
    const page = await fetch(`${url}/`);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(await page.text()).toContain("<title>app</title>");
    const script = await fetch(`${url}/assets/index-abc.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${url}/assets/index-abc.css`)).headers.get("content-type")).toBe(
      "text/css; charset=utf-8",
    );
    const head = await fetch(`${url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("reads a hashed asset once, and index.html on every request", async () => {
    expect(await (await fetch(`${url}/assets/index-abc.js`)).text()).toBe("console.log(1);");
    writeFileSync(path.join(directory, "assets", "index-abc.js"), "changed under its hash");
    writeFileSync(path.join(directory, "index.html"), "<!doctype html><title>new</title>");
    expect(await (await fetch(`${url}/assets/index-abc.js`)).text()).toBe("console.log(1);");
    expect(await (await fetch(`${url}/`)).text()).toContain("<title>new</title>");
  });

  it("serves nothing outside the folder, no dotfiles and no unknown kinds", async () => {
    expect((await fetch(`${url}/%2e%2e/outside.js`)).status).toBe(404);
    expect((await fetch(`${url}/assets/..%2f..%2foutside.js`)).status).toBe(404);
    expect((await fetch(`${url}/.secret.json`)).status).toBe(404);
    expect((await fetch(`${url}/missing.js`)).status).toBe(404);
    expect((await fetch(`${url}/index.html`, { method: "POST" })).status).toBe(404);
  });
});
