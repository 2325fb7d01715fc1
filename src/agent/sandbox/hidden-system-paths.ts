// What of the system roots a sandboxed command does not see: the secrets under /etc (each existing
// one covered). The rest of the machine is absent already (system-roots.ts).

/** Files under /etc that hold secrets: each existing one is covered with /dev/null. */
export const MASKED_SYSTEM_FILES: readonly string[] = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/security/opasswd",
  "/etc/krb5.keytab",
];

/**
 * Folders under /etc that hold secrets: each existing one is emptied. A command run as root keeps
 * reading what root owns even without capabilities. (/var/backups, with shadow.bak, /var/mail and
 * /var/spool are absent with the rest of /var.)
 */
export const EMPTIED_SYSTEM_SECRET_FOLDERS: readonly string[] = [
  "/etc/sudoers.d",
  "/etc/ssl/private",
  "/etc/NetworkManager/system-connections",
  "/etc/wireguard",
  "/etc/credstore",
  "/etc/credstore.encrypted",
];

/** Where ssh host keys are: every `*_key` file here is covered (the `.pub` halves stay). */
export const SSH_HOST_KEY_FOLDER = "/etc/ssh";

/**
 * Files under /etc that are often links into a folder the sandbox empties (/etc/resolv.conf into
 * /run/systemd/resolve): their target is bound back read-only, so name resolution keeps working
 * when the network is allowed.
 */
export const LINKED_SYSTEM_FILES: readonly string[] = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/localtime",
  "/etc/machine-id",
];
