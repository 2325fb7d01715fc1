// The parts of the machine a sandboxed command sees besides the workspace and the toolchain:
// the folders that hold programs, libraries and their configuration, read-only. Nothing else is
// mounted, so a folder Spark does not know (another project beside the workspace, /var/lib's
// databases and their sockets, a drive under /mnt, /home) is absent, not merely emptied.

/**
 * Bound read-only where they exist; a link among them (/bin -> usr/bin on merged-/usr systems) is
 * made again as the same link. /etc's secrets are covered after (hidden-system-paths.ts).
 * /nix/store, /gnu/store and /snap hold the programs of Nix, Guix and snaps.
 */
export const SYSTEM_ROOTS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/sys",
  "/nix/store",
  "/gnu/store",
  "/snap",
];

/**
 * Empty private folders a command may write (gone when it ends): programs expect them. /run is
 * where daemons keep their sockets on the host: the command gets its own, empty.
 */
export const PRIVATE_FOLDERS: readonly string[] = ["/tmp", "/var/tmp", "/run"];

/**
 * Links made inside the sandbox whatever the host has. /var is otherwise absent: /var/lib holds
 * databases and their sockets, /var/backups and /var/mail root's files, /var/cache nothing a
 * build needs.
 */
export const SANDBOX_LINKS: readonly { path: string; target: string }[] = [
  { path: "/var/run", target: "../run" },
];
