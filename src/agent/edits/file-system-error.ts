// Turns an unexpected filesystem error (permissions, disk full) into a SparkError a user can act
// on: permission problems as permission_denied, anything else as internal_error.
import { SparkError } from "../../protocol/spark-error.ts";

export function fileSystemError(error: unknown, action: string, relativePath: string): SparkError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    return new SparkError("permission_denied", `Cannot ${action} ${relativePath}: ${reason}`, {
      cause: error,
    });
  }
  return new SparkError("internal_error", `Could not ${action} ${relativePath}: ${reason}`, {
    cause: error,
  });
}
