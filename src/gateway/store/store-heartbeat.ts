// Renews this replica's lease (and the concurrency slots it holds) three times per lease, so a
// replica that dies is taken for dead within one lease and its responses can be continued.
import type { RequestLog } from "../request-log.ts";
import { describeWireError } from "../wire/wire-error.ts";
import type { GatewayStore } from "./gateway-store.ts";

export interface StoreHeartbeat {
  stop(): void;
}

export function startStoreHeartbeat(store: GatewayStore, log: RequestLog): StoreHeartbeat {
  let failing = false;
  const beat = (): void => {
    store.heartbeat().then(
      () => {
        if (failing) log.store("lease renewed again");
        failing = false;
      },
      (error: unknown) => {
        // Once per outage: every beat fails while the store is away.
        if (!failing)
          log.store(`cannot renew this replica's lease: ${describeWireError(error).message}`);
        failing = true;
      },
    );
  };
  beat();
  const timer = setInterval(beat, Math.max(50, Math.floor(store.leaseMs / 3)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
