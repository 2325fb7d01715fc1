// Which paths `spark serve` answers without an API key, over its real wiring on loopback: only
// /healthz and the browser app's shell (/, /index.html, /assets/*, /app-config.json). Every other
// path, unknown ones included, is 401 without a key and a 404 JSON error with one; none returns
// the app's page. Also: a request target that is not a plain path does not stop the server.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveStaticApp, WEB_APP_DIRECTORY } from "../../src/gateway/http/static-app.ts";
import {
  createScriptedWorkspace,
  type ScriptedWorkspace,
} from "../app-server/support/app-server-harness.ts";
import {
  startServeHarness,
  TEST_API_KEY,
  type ServeHarness,
} from "../app-server/support/serve-harness.ts";

const bearer = { authorization: `Bearer ${TEST_API_KEY}` };
const webAppBuilt = existsSync(path.join(WEB_APP_DIRECTORY, "index.html"));

/** Paths that are not the app's shell: each needs the key, and none may answer with the page. */
const GUARDED_PATHS = [
  "/foo",
  "/foo/bar",
  "/settings",
  "/index.htm",
  "/index.html.bak",
  "/app.html",
  "/favicon.ico",
  "/assets",
  "/assets/missing-abc123.js",
  "/.env",
  "/web/dist/index.html",
  "/v1",
  "/v1/models",
  "/v1/nothing",
  "/metrics",
  "/v1/responses/resp_123",
];

let workspace: ScriptedWorkspace;
let harness: ServeHarness;

beforeAll(async () => {
  workspace = createScriptedWorkspace();
  harness = await startServeHarness(workspace, workspace.script("quiet", [{ text: "ok" }]));
});
afterAll(async () => {
  await harness.close();
  workspace.remove();
});

describe("open routes of spark serve with api keys", () => {
  it("serves the page at / and /index.html without a key", async () => {
    for (const route of ["/", "/index.html"]) {
      const response = await fetch(`${harness.serve.url}${route}`);
      // A checkout that has not built the app answers 503 with what to run, still without a key.
      expect(response.status, route).toBe(webAppBuilt ? 200 : 503);
      if (webAppBuilt) expect(await response.text()).toMatch(/^<!doctype html>/i);
    }
  });

  it("answers /app-config.json and /healthz without a key", async () => {
    const config = await fetch(`${harness.serve.url}/app-config.json`);
    expect(await config.json()).toEqual({ apiKeyRequired: true });
    expect((await fetch(`${harness.serve.url}/healthz`)).status).toBe(200);
  });

  it.skipIf(!webAppBuilt)(
    "serves the page's own hashed assets without a key (skipped when web/dist is not built)",
    async () => {
      const page = readFileSync(path.join(WEB_APP_DIRECTORY, "index.html"), "utf8");
      const assets = [...page.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map(
        (match) => match[1],
      );
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) {
        const response = await fetch(`${harness.serve.url}/${asset}`);
        expect(response.status, asset).toBe(200);
        expect(response.headers.get("cache-control")).toContain("immutable");
      }
    },
  );

  it("refuses every other path without a key: 401 JSON, never the page", async () => {
    for (const route of GUARDED_PATHS) {
      const response = await fetch(`${harness.serve.url}${route}`);
      expect(response.status, route).toBe(401);
      expect(response.headers.get("content-type"), route).toContain("application/json");
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code, route).toBe("invalid_api_key");
    }
    const wrongKey = await fetch(`${harness.serve.url}/foo`, {
      headers: { authorization: "Bearer wrong" },
    });
    expect(wrongKey.status).toBe(401);
    const post = await fetch(`${harness.serve.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(post.status).toBe(401);
  });

  it("answers an unknown path with a key as a 404 JSON error, not the page", async () => {
    for (const route of ["/foo", "/settings", "/app.html", "/assets/missing-abc123.js"]) {
      const response = await fetch(`${harness.serve.url}${route}`, { headers: bearer });
      expect(response.status, route).toBe(404);
      expect(response.headers.get("content-type"), route).toContain("application/json");
      const body = (await response.json()) as { error: { code: string; type: string } };
      expect(body.error).toMatchObject({ code: "not_found", type: "not_found_error" });
    }
  });

  it("keeps serving after targets that are not plain paths (//, *, an upgrade to //)", async () => {
    // `//` once made URL parsing throw inside the request listener, which ended the process.
    const doubleSlash = await fetch(`${harness.serve.url}//`, {
      signal: AbortSignal.timeout(5000),
    });
    expect([200, 503]).toContain(doubleSlash.status);
    expect((await fetch(`${harness.serve.url}//v1/models`)).status).toBe(401);
    const asterisk = await rawRequest(harness.serve.url, "OPTIONS * HTTP/1.1");
    expect(asterisk).toMatch(/^HTTP\/1\.1 400 /);
    expect(asterisk).toContain("invalid_request_target");
    expect(await upgradeStatus(harness.serve.url, "//")).toBe(404);
    expect(await upgradeStatus(harness.serve.url, "//v1/responses")).toBe(404);
    expect((await fetch(`${harness.serve.url}/healthz`)).status).toBe(200);
  });
});

describe("serveStaticApp's paths", () => {
  it("serves only the page and assets/, not other files that lie in the app folder", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "spark-open-routes-"));
    mkdirSync(path.join(directory, "assets"));
    writeFileSync(path.join(directory, "index.html"), "<!doctype html><title>app</title>");
    writeFileSync(path.join(directory, "assets", "index-abc.js"), "console.log(1);");
    writeFileSync(path.join(directory, "other.html"), "<!doctype html><title>other</title>");
    writeFileSync(path.join(directory, "favicon.ico"), "icon");
    const server = createServer((request, response) => {
      const urlPath = new URL(request.url ?? "/", "http://localhost").pathname;
      serveStaticApp(request, response, urlPath, { directory, apiKeyRequired: true })
        .then((served) => {
          if (!served) response.writeHead(404).end();
        })
        .catch(() => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${url}/`)).status).toBe(200);
      expect((await fetch(`${url}/index.html`)).status).toBe(200);
      expect((await fetch(`${url}/assets/index-abc.js`)).status).toBe(200);
      expect((await fetch(`${url}/other.html`)).status).toBe(404);
      expect((await fetch(`${url}/favicon.ico`)).status).toBe(404);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** Sends one request line by hand (fetch cannot send `*`) and returns the raw response. */
function rawRequest(url: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`${requestLine}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`),
    );
    let text = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    socket.once("end", () => resolve(text));
    socket.once("error", reject);
  });
}

/** The status a WebSocket handshake on `target` is refused with (0 if it was accepted). */
function upgradeStatus(url: string, target: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: hostname,
      port: Number(port),
      path: target,
      headers: {
        ...bearer,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    request.once("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once("upgrade", (_response, socket) => {
      socket.destroy();
      resolve(0);
    });
    request.once("error", reject);
    request.end();
  });
}
