// Serves the browser app (built by `npm install` into web/dist) at `/`: its page, its hashed
// assets under `/assets/`, a Content-Security-Policy that allows only this server's own script,
// and `/app-config.json`, which tells the page whether it must ask for an api key. These are the
// only paths served without a key, so nothing else in the folder and no fallback page is served:
// the app routes by the URL's hash, so no other path is one of its pages.
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const WEB_APP_DIRECTORY = fileURLToPath(new URL("../../../web/dist/", import.meta.url));

/** No inline script or style, no other origin; the page only talks back to this server. */
export const WEB_APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

// Vite puts a content hash in every asset's name: an asset never changes under its name, so it is
// read once and kept (up to a bound), and only index.html must be re-checked by browsers.
const IMMUTABLE = "public, max-age=31536000, immutable";
const KEPT_ASSET_BYTES = 16 * 1024 * 1024;
const keptAssets = new Map<string, Buffer>();
let keptAssetBytes = 0;

function keepAsset(filePath: string, body: Buffer): void {
  if (keptAssets.has(filePath) || keptAssetBytes + body.length > KEPT_ASSET_BYTES) return;
  keptAssets.set(filePath, body);
  keptAssetBytes += body.length;
}

export interface StaticAppOptions {
  directory?: string;
  apiKeyRequired: boolean;
}

/** Answers GET/HEAD for the app's files; false when the path is not one of them. */
export async function serveStaticApp(
  request: IncomingMessage,
  response: ServerResponse,
  urlPath: string,
  options: StaticAppOptions,
): Promise<boolean> {
  const method = request.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") return false;
  if (urlPath === "/app-config.json") {
    send(
      response,
      method,
      200,
      CONTENT_TYPES[".json"] ?? "",
      "no-store",
      Buffer.from(JSON.stringify({ apiKeyRequired: options.apiKeyRequired })),
    );
    return true;
  }
  const directory = options.directory ?? WEB_APP_DIRECTORY;
  const relative = appFileOf(urlPath);
  if (relative === undefined) return false;
  const filePath = path.resolve(directory, relative);
  const extension = path.extname(filePath);
  const insideApp = filePath.startsWith(path.resolve(directory) + path.sep);
  if (
    !insideApp ||
    relative.split("/").some((part) => part.startsWith(".")) ||
    CONTENT_TYPES[extension] === undefined
  ) {
    return false;
  }
  const hashedAsset = relative.startsWith("assets/");
  const kept = hashedAsset ? keptAssets.get(filePath) : undefined;
  if (kept !== undefined) {
    send(response, method, 200, CONTENT_TYPES[extension] ?? "", IMMUTABLE, kept);
    return true;
  }
  const found = await stat(filePath).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!found) {
    if (relative !== "index.html") return false;
    send(
      response,
      method,
      503,
      "text/plain; charset=utf-8",
      "no-store",
      Buffer.from(
        "The browser app is not built. Run `npm install` (or `npm run build:web`) in the Spark repository.\n",
      ),
    );
    return true;
  }
  const body = await readFile(filePath);
  if (hashedAsset) keepAsset(filePath, body);
  send(
    response,
    method,
    200,
    CONTENT_TYPES[extension] ?? "",
    hashedAsset ? IMMUTABLE : "no-cache",
    body,
  );
  return true;
}

/** The app file a path names, relative to the app folder; undefined for any other path. */
function appFileOf(urlPath: string): string | undefined {
  if (urlPath === "/" || urlPath === "/index.html") return "index.html";
  return urlPath.startsWith("/assets/") ? urlPath.slice(1) : undefined;
}

function send(
  response: ServerResponse,
  method: string,
  status: number,
  contentType: string,
  cacheControl: string,
  body: Buffer,
): void {
  response.writeHead(status, {
    "content-type": contentType,
    "content-length": body.length,
    "cache-control": cacheControl,
    "content-security-policy": WEB_APP_CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  });
  response.end(method === "HEAD" ? undefined : body);
}
