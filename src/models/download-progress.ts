// What a download reports as it goes: shared by pullModel, the progress bar and its writer.

export interface DownloadProgress {
  /** Bytes on disk so far, including any resumed from an earlier attempt. */
  receivedBytes: number;
  /** Undefined when the server did not say how large the file is. */
  totalBytes: number | undefined;
  /** Average over this attempt (resumed bytes excluded). */
  bytesPerSecond: number;
}
