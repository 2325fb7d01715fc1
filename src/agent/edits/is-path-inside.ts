// The one containment test for real paths: inside (or equal to) a folder, never via "..".
import path from "node:path";

export function isPathInside(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  return !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}
