// Every scenario, in the order.
import type { Scenario } from "../lib/scenario.ts";
import { fimTyping } from "./fim-typing.ts";
import { gpuDecode } from "./gpu-decode.ts";
import { interrupt } from "./interrupt.ts";
import { peerLlamaServer } from "./peer-llama-server.ts";
import { prefixCacheDisk } from "./prefix-cache-disk.ts";
import { servingPathCost } from "./serving-path-cost.ts";
import { sessionVsStateless } from "./session-vs-stateless.ts";
import { speculativeEdits } from "./speculative-edits.ts";
import { tuiRender } from "./tui-render.ts";

export const scenarios: Scenario[] = [
  sessionVsStateless,
  servingPathCost,
  interrupt,
  speculativeEdits,
  peerLlamaServer,
  gpuDecode,
  tuiRender,
  fimTyping,
  prefixCacheDisk,
];
