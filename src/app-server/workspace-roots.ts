// The directories sessions may work in. Paths are compared after realpath, so a symbolic link
// inside a root that points outside it does not open the way out.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isPathInside } from "../agent/edits/is-path-inside.ts";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import { SparkError } from "../protocol/spark-error.ts";

export class WorkspaceRoots {
  readonly roots: readonly string[];

  /** Each root must exist; they are kept as real paths. */
  constructor(roots: readonly string[]) {
    if (roots.length === 0)
      throw new SparkError("invalid_config", "At least one workspace root is needed.");
    this.roots = roots.map((root) => {
      try {
        return realpathSync(root);
      } catch (error) {
        throw new SparkError(
          "invalid_config",
          `The workspace root ${root} does not exist (--workspace-root or [agent] workspace_roots).`,
          { cause: error },
        );
      }
    });
  }

  /** The real path of `directory` when it lies inside a root; otherwise permission_denied. */
  resolve(directory: string | undefined): string {
    const requested = directory ?? this.roots[0] ?? "";
    let real: string;
    try {
      real = realpathSync(path.resolve(this.roots[0] ?? "", requested));
    } catch {
      throw new AgentProtocolError(
        "invalid_params",
        `cwd: ${requested} does not exist on the server.`,
      );
    }
    if (!this.contains(real)) {
      throw new AgentProtocolError(
        "permission_denied",
        `cwd: ${requested} is outside the server's workspace roots (${this.roots.join(", ")}); ` +
          "start spark serve with --workspace-root for it or add it to [agent] workspace_roots.",
      );
    }
    if (!statSync(real).isDirectory())
      throw new AgentProtocolError("invalid_params", `cwd: ${requested} is not a directory.`);
    return real;
  }

  /** Whether the real path lies inside (or is) a root. */
  contains(realPath: string): boolean {
    return this.roots.some((root) => isPathInside(root, realPath));
  }
}
