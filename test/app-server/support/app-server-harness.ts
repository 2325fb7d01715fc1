// Test helper: a temporary repository and SPARK_HOME, a scripted model file, and the app server
// built by createLocalAppServer over a real config and model registry, with clients to drive it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createLocalAppServer } from "../../../src/app-server/create-local-app-server.ts";
import type { AppServer } from "../../../src/app-server/app-server.ts";
import type { HostContext } from "../../../src/host/host-context.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import type { ScriptTurnInput } from "../../../src/engines/script/script-turn.ts";
import {
  AgentProtocolClient,
  createInMemoryTransportPair,
  type SessionEvent,
  type SessionEventNotification,
} from "../../../src/protocol/agent/index.ts";
import { createEngine } from "../../../src/router/create-engine.ts";
import { Router } from "../../../src/router/router.ts";
import { ModelRegistry } from "../../../src/router/model-registry.ts";
import { createAgentWorkspace, type AgentWorkspace } from "../../agent/support/agent-workspace.ts";

export interface ScriptedWorkspace extends AgentWorkspace {
  sparkHome: string;
  /** Writes a script file and returns its `script:<file>` model reference. */
  script(name: string, turns: ScriptTurnInput[]): string;
  context(): Promise<HostContext>;
}

export function createScriptedWorkspace(): ScriptedWorkspace {
  const workspace = createAgentWorkspace();
  const sparkHome = path.dirname(workspace.sessionsDirectory);
  return {
    ...workspace,
    sparkHome,
    script(name, turns) {
      const file = path.join(sparkHome, `${name}.jsonl`);
      writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join("\n"));
      return `script:${file}`;
    },
    async context() {
      const config = await loadConfig({
        cwd: workspace.root,
        env: { SPARK_HOME: sparkHome },
        flags: {},
      });
      const registry = new ModelRegistry({ config, createEngine });
      return { config, registry, router: new Router({ registry, config: config.router }) };
    },
  };
}

export interface InProcessAppServerOptions {
  allowCommands?: boolean;
  unattendedSessionMs?: number;
}

export async function startInProcessAppServer(
  workspace: ScriptedWorkspace,
  defaultModel: string,
  options: InProcessAppServerOptions = {},
): Promise<AppServer> {
  return createLocalAppServer({
    context: await workspace.context(),
    workspaceRoots: [workspace.root],
    defaultModel,
    instructions: "You are Spark, in a test.",
    ...options,
  });
}

export function connectInProcess(appServer: AppServer): AgentProtocolClient {
  const [clientEnd, serverEnd] = createInMemoryTransportPair();
  appServer.connect(serverEnd);
  return new AgentProtocolClient(clientEnd);
}

export interface InProcessHarness {
  appServer: AppServer;
  /** A client over the in-memory transport; closed by `close`. */
  connect(): AgentProtocolClient;
  close(): Promise<void>;
}

/** The in-process app server with the clients a test opens, all closed by one `close`. */
export async function startInProcessHarness(
  workspace: ScriptedWorkspace,
  defaultModel: string,
  options: InProcessAppServerOptions = {},
): Promise<InProcessHarness> {
  const appServer = await startInProcessAppServer(workspace, defaultModel, options);
  const clients: AgentProtocolClient[] = [];
  return {
    appServer,
    connect() {
      const client = connectInProcess(appServer);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.close();
      await appServer.close();
    },
  };
}

/** Every session event a client receives, in order. */
export class EventRecorder {
  readonly notifications: SessionEventNotification[] = [];
  private waiters: {
    predicate: (event: SessionEvent) => boolean;
    resolve: (event: SessionEvent) => void;
  }[] = [];

  constructor(client: AgentProtocolClient) {
    client.onSessionEvent((notification) => {
      this.notifications.push(notification);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.predicate(notification.event)) return true;
        waiter.resolve(notification.event);
        return false;
      });
    });
  }

  get events(): SessionEvent[] {
    return this.notifications.map((notification) => notification.event);
  }

  types(): string[] {
    return this.events.map((event) => event.type);
  }

  ofType<Type extends SessionEvent["type"]>(type: Type): Extract<SessionEvent, { type: Type }>[] {
    return this.events.filter(
      (event): event is Extract<SessionEvent, { type: Type }> => event.type === type,
    );
  }

  /** The first event (already received or still to come) matching the predicate. */
  next<Type extends SessionEvent["type"]>(
    type: Type,
    predicate: (event: Extract<SessionEvent, { type: Type }>) => boolean = () => true,
    after = 0,
  ): Promise<Extract<SessionEvent, { type: Type }>> {
    const matches = (event: SessionEvent): boolean =>
      event.type === type && predicate(event as Extract<SessionEvent, { type: Type }>);
    const seen = this.events.slice(after).find(matches);
    if (seen !== undefined) return Promise.resolve(seen as Extract<SessionEvent, { type: Type }>);
    return new Promise((resolve) => {
      this.waiters.push({
        predicate: matches,
        resolve: (event) => resolve(event as Extract<SessionEvent, { type: Type }>),
      });
    });
  }

  /** Waits for the turn to end and the session to be idle again. */
  async turnFinished(count = 1): Promise<void> {
    await this.nth("turn-finished", count);
    await this.nthStatus("idle", count);
  }

  private async nth(type: SessionEvent["type"], count: number): Promise<void> {
    while (this.ofType(type).length < count) await this.next(type, () => true, this.events.length);
  }

  private async nthStatus(status: string, count: number): Promise<void> {
    const idleCount = (): number =>
      this.ofType("status-changed").filter((event) => event.status === status).length;
    while (idleCount() < count) await this.next("status-changed", () => true, this.events.length);
  }
}
