// The agent protocol's server core, independent of any transport: `spark serve` feeds it
// WebSocket connections at /v1/agent, the terminal UI an in-memory pair.
import type { MessageTransport } from "../protocol/agent/message-transport.ts";
import type { AppServerOptions } from "./app-server-options.ts";
import { ClientConnection } from "./client-connection.ts";
import { SessionRegistry } from "./session-registry.ts";
import { LOCAL_TENANT } from "./session-tenant.ts";
import { WorkspaceRoots } from "./workspace-roots.ts";

export type { AppServerModels, AppServerOptions, SessionModel } from "./app-server-options.ts";

export interface AppServer {
  /**
   * Serves one already-authenticated client connection until it closes. `tenant` is its key's
   * (gateway/access/tenant.ts): it sees and steers only that tenant's sessions. Default: the local
   * user.
   */
  connect(transport: MessageTransport, tenant?: string): void;
  /** Interrupts running turns, closes session logs. */
  close(): Promise<void>;
}

export function createAppServer(options: AppServerOptions): AppServer {
  const roots = new WorkspaceRoots(options.workspaceRoots);
  const connections = new Set<ClientConnection>();
  const registry = new SessionRegistry(options, roots, (session, tenant) => {
    for (const connection of connections)
      if (connection.tenant === tenant) connection.sendSessionUpdated(session);
  });
  let closed = false;
  return {
    connect(transport, tenant = LOCAL_TENANT) {
      if (closed) {
        transport.close(1001, "the agent server is shutting down");
        return;
      }
      const connection = new ClientConnection(transport, registry, options, roots, tenant, () =>
        connections.delete(connection),
      );
      connections.add(connection);
    },
    async close() {
      closed = true;
      for (const connection of connections)
        connection.close(1001, "the agent server is shutting down");
      connections.clear();
      await registry.closeAll();
    },
  };
}
