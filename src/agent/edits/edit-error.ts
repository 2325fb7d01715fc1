// The typed error every edit operation throws for a condition the model can fix: a SparkError
// ("invalid_request") carrying a finer `editCode` and a message worded for the model's next call.
import { SparkError, type SparkErrorJson } from "../../protocol/spark-error.ts";

export type EditErrorCode =
  | "no_match"
  | "ambiguous_match"
  | "stale_file"
  | "file_not_read"
  | "outside_workspace"
  /**
   * Inside the workspace but never written: git metadata (.git/, a .git file's git directory),
   * the core.hooksPath folder, .husky/, .spark/.
   */
  | "protected_path"
  /** A regular file with more than one hard link: its other names may be outside; never read. */
  | "hard_linked_file"
  | "file_exists"
  | "file_not_found"
  | "not_a_text_file"
  | "no_change"
  | "patch_syntax";

export interface EditErrorOptions {
  /** The workspace-relative path the error is about, when there is one. */
  path?: string;
  /** For patch_syntax: the 1-based line of the patch text that is wrong. */
  patchLine?: number;
  cause?: unknown;
}

export interface EditErrorJson extends SparkErrorJson {
  editCode: EditErrorCode;
  path?: string;
  patchLine?: number;
}

export class EditError extends SparkError {
  readonly editCode: EditErrorCode;
  readonly path: string | undefined;
  readonly patchLine: number | undefined;

  constructor(editCode: EditErrorCode, message: string, options: EditErrorOptions = {}) {
    super("invalid_request", message, options.cause === undefined ? {} : { cause: options.cause });
    this.editCode = editCode;
    this.path = options.path;
    this.patchLine = options.patchLine;
  }

  override toJSON(): EditErrorJson {
    const json: EditErrorJson = { ...super.toJSON(), editCode: this.editCode };
    if (this.path !== undefined) json.path = this.path;
    if (this.patchLine !== undefined) json.patchLine = this.patchLine;
    return json;
  }

  static isEditError(value: unknown): value is EditError {
    return value instanceof EditError;
  }
}
