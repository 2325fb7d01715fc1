// GET /readyz: whether a load balancer should send this replica new work. Unready while it drains,
// before its default model is loaded, and while its shared store cannot be reached (chains and
// stored responses would fail here); /healthz stays 200 through all of these (the process lives).
import type { ServerResponse } from "node:http";
import type { GatewayContext } from "../gateway-context.ts";
import { sendJson } from "./http-io.ts";

export function readinessOf(context: GatewayContext): { ready: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (context.drain.draining) reasons.push("draining");
  if (!context.readiness.modelLoaded) reasons.push("model_loading");
  if (context.store.reachable === false) reasons.push("store_unreachable");
  return { ready: reasons.length === 0, reasons };
}

export function sendReadiness(context: GatewayContext, response: ServerResponse): void {
  const { ready, reasons } = readinessOf(context);
  sendJson(
    response,
    ready ? 200 : 503,
    ready ? { status: "ready" } : { status: "unready", reasons },
    ready ? {} : { "retry-after": "1" },
  );
}
