// What the terminal UI knows of how its agent runs, handed from run-tui down to the commands that
// show it (/status). Its own module so the command context and /status both import it.
/** In process all of it, on a server only the route. */
export interface AgentEnvironment {
  /** "in-process" or the server's URL. */
  route: string;
  /** In process: the sandbox the session's commands get. On a server it is the server's. */
  sandbox?: { kind: string; description: string; network: boolean };
  /** In process: --allow-commands runs every command without asking. */
  allowCommands?: boolean;
}
