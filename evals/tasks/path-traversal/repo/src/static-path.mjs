import path from "node:path";

/** The file under `root` that a request for `requestPath` (e.g. "/css/site.css") serves. */
export function resolveStaticPath(root, requestPath) {
  return path.join(root, requestPath);
}
