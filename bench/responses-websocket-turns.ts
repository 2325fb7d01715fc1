// The OpenAI-compatible engine's Responses transports side by side in one run: an agent-like
// conversation that grows every turn (a tool output of a few KB each), over HTTP/SSE (the whole
// conversation each turn) and over the WebSocket mode (`previous_response_id` and only the new
// items), against an in-process `spark serve` gateway on the synthetic engine. A counting TCP
// proxy measures the bytes each turn puts on the wire towards the upstream.
// Usage: npx tsx bench/responses-websocket-turns.ts [--turns 20] [--tool-output-bytes 4000]
import { createServer, connect, type AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { ChatMessage } from "../src/engines/engine.ts";
import { createOpenAICompatibleEngine } from "../src/engines/openai-compatible/index.ts";
import { createSyntheticEngine } from "../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine } from "../src/gateway/index.ts";
import { formatTable } from "./lib/print-table.ts";

const { values } = parseArgs({
  options: {
    turns: { type: "string", default: "20" },
    "tool-output-bytes": { type: "string", default: "4000" },
  },
});
const turns = Number(values.turns);
const toolOutput = "export const value = 1; // filler line of a file the agent read\n".repeat(
  Math.ceil(Number(values["tool-output-bytes"]) / 64),
);

const upstreamEngine = createSyntheticEngine({ tokensPerSecond: 20_000 });
const model = (await upstreamEngine.listModels())[0]?.id ?? "synthetic";
const gateway = createGateway({
  models: modelsFromEngine(upstreamEngine),
  config: { host: "127.0.0.1", port: 0 },
});
const { url } = await gateway.listen();
const gatewayPort = Number(new URL(url).port);

/** Bytes from clients towards the gateway, summed over every connection. */
let bytesSent = 0;
const proxy = createServer((client) => {
  const upstream = connect(gatewayPort, "127.0.0.1");
  client.on("data", (chunk: Buffer) => (bytesSent += chunk.length));
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;

interface TurnSample {
  bytes: number;
  timeToFirstTokenMs: number;
  totalMs: number;
}

async function runConversation(transport: "http" | "websocket"): Promise<TurnSample[]> {
  const engine = createOpenAICompatibleEngine({
    preset: "custom",
    api: "responses",
    transport,
    baseUrl: proxyUrl,
    model,
  });
  await engine.warmUp();
  const messages: ChatMessage[] = [{ role: "system", content: "You are a coding agent." }];
  const samples: TurnSample[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push({ role: "user", content: `Step ${turn}: read file ${turn}.` });
    messages.push({
      role: "assistant",
      content: "",
      toolCalls: [{ id: `call_${turn}`, name: "read_file", arguments: `{"path":"f${turn}.ts"}` }],
    });
    messages.push({ role: "tool", toolCallId: `call_${turn}`, content: toolOutput });
    const before = bytesSent;
    const startedAt = performance.now();
    const result = await collectStream(
      engine.stream({
        messages,
        sessionKey: `bench-${transport}`,
        sampling: { maxOutputTokens: 16 },
      }),
    );
    if (result.error !== undefined) throw result.error;
    samples.push({
      bytes: bytesSent - before,
      timeToFirstTokenMs: result.timings?.timeToFirstTokenMs ?? NaN,
      totalMs: performance.now() - startedAt,
    });
    messages.push({ role: "assistant", content: result.text });
  }
  await engine.dispose();
  return samples;
}

const median = (numbers: number[]): number =>
  [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? NaN;
const sum = (numbers: number[]): number => numbers.reduce((total, value) => total + value, 0);

// Alternated and repeated so neither transport always runs on a colder process.
const http: TurnSample[] = [];
const webSocket: TurnSample[] = [];
for (let round = 0; round < 2; round += 1) {
  webSocket.push(...(await runConversation("websocket")));
  http.push(...(await runConversation("http")));
}

const row = (name: string, pick: (samples: TurnSample[]) => number, unit: string): string[] => {
  const httpValue = pick(http);
  const webSocketValue = pick(webSocket);
  return [
    name,
    `${httpValue.toFixed(1)} ${unit}`,
    `${webSocketValue.toFixed(1)} ${unit}`,
    `${(webSocketValue / httpValue).toFixed(3)}×`,
  ];
};
console.log(
  formatTable({
    title: `Responses upstream, ${turns} agent turns (+${toolOutput.length} B tool output each), 2 rounds`,
    columns: ["figure", "http/sse", "websocket", "websocket ÷ http"],
    rows: [
      row("bytes sent, all turns", (samples) => sum(samples.map((s) => s.bytes)) / 2, "B"),
      row("bytes sent, last turn", (samples) => samples.at(-1)?.bytes ?? NaN, "B"),
      row("time to first token, median", (s) => median(s.map((x) => x.timeToFirstTokenMs)), "ms"),
      row("turn time, median", (samples) => median(samples.map((s) => s.totalMs)), "ms"),
    ],
  }),
);
proxy.close();
await gateway.close();
await upstreamEngine.dispose();
