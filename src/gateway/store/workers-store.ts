// The in-machine store of `spark serve --workers N` without Redis: the primary process keeps one
// MemoryStoreCore and answers its workers' calls over IPC; each worker sees it as a shared store
// (its own replica, lease and slots), so chains, limits and resume work across the workers. The
// channel is abstract (cluster in spark serve, a pair of functions in tests).
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import type {
  GatewayStore,
  LiveAppend,
  LiveAppendOutcome,
  LiveClaimOutcome,
  LiveSnapshot,
  StoredResponse,
} from "./gateway-store.ts";
import type { MemoryStoreCore } from "./memory-store-core.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

const CHANNEL = "spark-store";

/** A worker's call: the core's method with the calling replica's name. */
export interface StoreCall {
  type: typeof CHANNEL;
  callId: number;
  replica: string;
  method: StoreMethod;
  args: unknown[];
}

export interface StoreReply {
  type: typeof CHANNEL;
  callId: number;
  result?: unknown;
  error?: string;
}

type StoreMethod =
  | "getResponse"
  | "findItems"
  | "putResponse"
  | "acquireSlot"
  | "releaseSlot"
  | "appendLive"
  | "readLive"
  | "findRequest"
  | "claimLive"
  | "heartbeat"
  | "close";

export function isStoreCall(message: unknown): message is StoreCall {
  return (
    (message as { type?: unknown } | null)?.type === CHANNEL && "method" in (message as object)
  );
}

function isStoreReply(message: unknown): message is StoreReply {
  return (
    (message as { type?: unknown } | null)?.type === CHANNEL && !("method" in (message as object))
  );
}

/** The primary's side: answers one call against the core. */
export function answerStoreCall(core: MemoryStoreCore, call: StoreCall): StoreReply {
  const { replica, args } = call;
  const reply = (result: unknown): StoreReply => ({ type: CHANNEL, callId: call.callId, result });
  try {
    switch (call.method) {
      case "getResponse":
        return reply(core.getResponse(args[0] as string, args[1] as string));
      case "findItems":
        return reply([...core.findItems(args[0] as string[], args[1] as string)]);
      case "putResponse":
        return reply(core.putResponse(args[0] as StoredResponse));
      case "acquireSlot":
        return reply(core.acquireSlot(replica, args[0] as string, args[1] as number));
      case "releaseSlot":
        return reply(core.releaseSlot(args[0] as string, args[1] as string));
      case "appendLive":
        return reply((args[0] as LiveAppend[]).map((append) => core.appendLive(replica, append)));
      case "readLive":
        return reply(core.readLive(args[0] as string, args[1] as string, args[2] as number));
      case "findRequest":
        return reply(core.findRequest(args[0] as string, args[1] as string));
      case "claimLive":
        return reply(core.claimLive(replica, args[0] as string, args[1] as string));
      case "heartbeat":
        return reply(core.heartbeat(replica));
      case "close":
        return reply(core.endLease(replica));
      default:
        call.method satisfies never;
        return { type: CHANNEL, callId: call.callId, error: "unknown store method" };
    }
  } catch (error) {
    return { type: CHANNEL, callId: call.callId, error: (error as Error).message };
  }
}

export interface WorkerChannel {
  send(message: StoreCall): void;
  onMessage(handler: (message: unknown) => void): void;
}

/** A worker's side: every call goes to the primary and waits for its answer. */
export class WorkersGatewayStore implements GatewayStore {
  readonly kind = "workers";
  readonly shared = true;
  private nextCall = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void; what: string }
  >();

  constructor(
    private readonly channel: WorkerChannel,
    readonly replicaId: string,
    readonly leaseMs: number,
  ) {
    channel.onMessage((message) => {
      if (!isStoreReply(message)) return;
      const waiter = this.waiting.get(message.callId);
      if (waiter === undefined) return;
      this.waiting.delete(message.callId);
      if (message.error === undefined) waiter.resolve(message.result);
      else
        waiter.reject(
          new StoreUnavailableError(waiter.what, "the primary", new Error(message.error)),
        );
    });
  }

  async getResponse(id: string, owner: string): Promise<StoredResponse | undefined> {
    return (await this.call("previous_response_id", "getResponse", [id, owner])) as
      StoredResponse | undefined;
  }

  async findItems(
    itemIds: readonly string[],
    owner: string,
  ): Promise<Map<string, ResponseOutputItem>> {
    const entries = await this.call("item_reference", "findItems", [itemIds, owner]);
    return new Map(entries as Array<[string, ResponseOutputItem]>);
  }

  async putResponse(stored: StoredResponse): Promise<void> {
    await this.call("storing the response", "putResponse", [stored]);
  }

  async acquireSlot(owner: string, max: number): Promise<string | undefined> {
    return (await this.call("the per-key concurrency limit", "acquireSlot", [owner, max])) as
      string | undefined;
  }

  async releaseSlot(owner: string, slotId: string): Promise<void> {
    await this.call("releasing a concurrency slot", "releaseSlot", [owner, slotId]);
  }

  async appendLive(appends: readonly LiveAppend[]): Promise<LiveAppendOutcome[]> {
    return (await this.call("logging a response in flight", "appendLive", [
      appends,
    ])) as LiveAppendOutcome[];
  }

  async readLive(id: string, owner: string, after: number): Promise<LiveSnapshot | undefined> {
    return (await this.call("resuming a response", "readLive", [id, owner, after])) as
      LiveSnapshot | undefined;
  }

  async findRequest(fingerprint: string, owner: string): Promise<string | undefined> {
    return (await this.call("finding a retried request", "findRequest", [fingerprint, owner])) as
      string | undefined;
  }

  async claimLive(id: string, owner: string): Promise<LiveClaimOutcome> {
    return (await this.call("taking over a response", "claimLive", [
      id,
      owner,
    ])) as LiveClaimOutcome;
  }

  async heartbeat(): Promise<void> {
    await this.call("renewing this worker's lease", "heartbeat", []);
  }

  async close(): Promise<void> {
    await this.call("ending this worker's lease", "close", []).catch(() => undefined);
  }

  private call(what: string, method: StoreMethod, args: unknown[]): Promise<unknown> {
    const callId = this.nextCall++;
    return new Promise((resolve, reject) => {
      this.waiting.set(callId, { resolve, reject, what });
      try {
        // JSON over IPC: undefined inside arrays and objects is dropped or nulled, as intended.
        this.channel.send({ type: CHANNEL, callId, replica: this.replicaId, method, args });
      } catch (error) {
        this.waiting.delete(callId);
        reject(new StoreUnavailableError(what, "the primary", error));
      }
    });
  }
}
