// Passes when paths inside root resolve and every escape, including a sibling folder that shares
// root's name as a prefix, throws.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { resolveStaticPath } = await import(pathToFileURL(path.resolve("src/static-path.mjs")).href);
const root = path.resolve("/srv/public");
assert.equal(resolveStaticPath(root, "/css/site.css"), path.join(root, "css", "site.css"));
assert.equal(resolveStaticPath(root, "/a/../b.txt"), path.join(root, "b.txt"));
for (const escape of ["/../secret.txt", "../../etc/passwd", "/a/../../x", "/../public-evil/x"]) {
  assert.throws(() => resolveStaticPath(root, escape), `${escape} must be refused`);
}
