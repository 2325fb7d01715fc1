// What of the system a sandboxed command does not see although the rest of / is visible: the
// folders where users and daemons keep their files and sockets (emptied), and the secrets under
// /etc (each existing one covered).

/**
 * Replaced by an empty private folder. Homes (with the user's own $HOME, added at run time);
 * /run and /var/run hold the daemons' sockets (docker.sock, D-Bus, /run/user/<uid>/ with the
 * session bus, ssh-agent, gpg-agent, Wayland, PulseAudio); /tmp, /var/tmp and /dev/shm hold other
 * programs' sockets and files (/dev/shm is private through bwrap's own /dev); /mnt, /media and
 * /srv hold mounted drives and services' data. The homes come first (sandbox-mounts.ts adds the
 * user's own after them).
 */
export const EMPTIED_SYSTEM_FOLDERS: readonly string[] = [
  "/home",
  "/root",
  "/run",
  "/var/run",
  "/tmp",
  "/var/tmp",
  "/mnt",
  "/media",
  "/srv",
];

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
 * Folders that hold secrets or other users' files: each existing one is emptied. A command run
 * as root keeps reading what root owns even without capabilities (/var/backups has shadow.bak).
 */
export const EMPTIED_SYSTEM_SECRET_FOLDERS: readonly string[] = [
  "/etc/sudoers.d",
  "/var/backups",
  "/var/mail",
  "/var/spool/mail",
  "/var/spool/cron",
  "/etc/ssl/private",
  "/etc/NetworkManager/system-connections",
  "/etc/wireguard",
  "/etc/credstore",
  "/etc/credstore.encrypted",
];

/** Where ssh host keys are: every `*_key` file here is covered (the `.pub` halves stay). */
export const SSH_HOST_KEY_FOLDER = "/etc/ssh";

/**
 * Files under /etc that are often links into an emptied folder (/etc/resolv.conf into
 * /run/systemd/resolve): their target is bound back read-only, so name resolution keeps working
 * when the network is allowed.
 */
export const LINKED_SYSTEM_FILES: readonly string[] = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/localtime",
  "/etc/machine-id",
];
