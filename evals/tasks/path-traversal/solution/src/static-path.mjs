import path from "node:path";

/** The file under `root` that a request for `requestPath` (e.g. "/css/site.css") serves. */
export function resolveStaticPath(root, requestPath) {
  const resolved = path.join(root, requestPath);
  const relative = path.relative(root, resolved);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new Error(`${requestPath} is outside the public folder`);
  }
  return resolved;
}
