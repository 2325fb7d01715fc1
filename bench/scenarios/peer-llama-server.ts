// Scenario 5: the peer. The same GGUF, threads and conversation through llama.cpp's own
// llama-server (Chat Completions, cache_prompt, one slot) and through Spark's gateway (WebSocket
// session, and the same Chat Completions path): follow-up-turn time to first token and tokens/s.
import { ensureLongContextTestModel } from "../lib/long-context-test-model.ts";
import { BenchServer } from "../lib/bench-server.ts";
import { readCorpus, userMessages } from "../lib/conversation-corpus.ts";
import { startLlamaServer } from "../lib/llama-server-process.ts";
import { runConversation, type ConversationTransport } from "../lib/run-conversation.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, skippedResult, type ScenarioResult } from "../lib/scenario-result.ts";
import { runChatCompletionsTurn } from "../lib/sse-turns.ts";
import { round } from "../lib/stats.ts";
import {
  clientDecodeTokensPerSecond,
  timeToFirstDelta,
  type TurnRecord,
} from "../lib/turn-record.ts";
import { warmUpServer } from "../lib/warm-up-server.ts";

interface PeerTurn {
  path: string;
  turn: number;
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  timeToFirstTokenMs: number;
  decodeTokensPerSecond: number;
}

const SPARK_WS = "Spark, WebSocket session";
const SPARK_CHAT = "Spark, Chat Completions";
const LLAMA_SERVER = "llama-server, Chat Completions";

export const peerLlamaServer: Scenario = {
  number: 5,
  id: "peer-llama-server",
  title: "Peer: llama-server",
  async run(settings) {
    const scenario = { number: 5, id: "peer-llama-server", title: "Peer: llama-server" };
    if (settings.llamaServerPath === undefined) {
      return skippedResult(
        scenario,
        "Set LLAMA_SERVER=<path to llama-server> to run it (bench/README.md says how to build it from the llama.cpp source node-llama-cpp ships).",
      );
    }
    const startedAt = new Date();
    const { size } = settings;
    let targetTokens = { full: 16_384, quick: 4096, smoke: 512 }[size];
    const turns = { full: 10, quick: 8, smoke: 3 }[size];
    const outputTokens = { full: 64, quick: 32, smoke: 4 }[size];
    const contextSize = targetTokens + 2048;
    const modelPath = settings.modelPath ?? (await ensureLongContextTestModel(contextSize));
    const engine = {
      kind: "llama-cpp" as const,
      modelPath,
      threads: settings.threads,
      contextSize,
      sequences: 1,
    };
    const turnsOut: PeerTurn[] = [];
    let messages: string[] = [];
    const record = (path: string, records: TurnRecord[]) =>
      records.forEach((entry, index) =>
        turnsOut.push({
          path,
          turn: index + 1,
          promptTokens: entry.inputTokens ?? 0,
          cachedTokens: entry.cachedInputTokens ?? 0,
          outputTokens: entry.outputTokens ?? entry.deltaCount,
          timeToFirstTokenMs: timeToFirstDelta(entry) ?? Number.NaN,
          decodeTokensPerSecond: clientDecodeTokensPerSecond(entry) ?? Number.NaN,
        }),
      );
    const sparkRun = async (path: string, transport: ConversationTransport) => {
      const server = await BenchServer.start({ engine, probe: false }, settings.signal);
      try {
        const tokensPerByte = await warmUpServer(server, settings.signal);
        if (messages.length === 0) {
          // A real model may hold less than asked (its trained context caps the engine's).
          targetTokens = Math.min(targetTokens, (server.contextLength ?? contextSize) - 2048);
          const userTokens = Math.max(32, Math.floor(targetTokens / turns) - outputTokens - 12);
          const bytes = Math.max(64, Math.floor(userTokens / tokensPerByte));
          messages = userMessages(
            await readCorpus(bytes * turns + 1024),
            Array<number>(turns).fill(bytes),
          );
        }
        settings.log(`  ${path}`);
        const records = await runConversation({
          baseUrl: server.url,
          model: server.model,
          transport,
          userMessages: messages,
          maxOutputTokens: outputTokens,
          signal: settings.signal,
        });
        record(path, records);
      } finally {
        await server.close();
      }
    };
    await sparkRun(SPARK_WS, { kind: "ws-session" });
    await sparkRun(SPARK_CHAT, { kind: "chat-completions" });

    settings.log(`  ${LLAMA_SERVER}`);
    const peer = await startLlamaServer({
      binaryPath: settings.llamaServerPath,
      modelPath,
      threads: settings.threads,
      contextSize,
      signal: settings.signal,
    });
    try {
      await runChatCompletionsTurn(
        peer.url,
        { messages: [{ role: "user", content: "warm up" }], max_tokens: 2, cache_prompt: true },
        { signal: settings.signal, freshConnection: true },
      );
      const records = await runConversation({
        baseUrl: peer.url,
        model: "default",
        transport: {
          kind: "chat-completions",
          extraBody: { cache_prompt: true },
          freshConnection: true,
        },
        userMessages: messages,
        maxOutputTokens: outputTokens,
        signal: settings.signal,
      });
      record(LLAMA_SERVER, records);
    } finally {
      await peer.close();
    }
    return buildResult(turnsOut, startedAt, {
      model: settings.modelPath ?? `test model (tiny, trained context patched to ${contextSize})`,
      threads: settings.threads,
      contextSize,
      turns,
      targetFinalContextTokens: targetTokens,
      outputTokensPerTurn: outputTokens,
      llamaServer: peer.commandLine,
      size,
    });
  },
};

function buildResult(
  turns: PeerTurn[],
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const followUps = (path: string) =>
    turns.filter((entry) => entry.path === path && entry.turn > 1);
  const mean = (path: string, pick: (entry: PeerTurn) => number) => {
    const values = followUps(path).map(pick).filter(Number.isFinite);
    return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  };
  const ttft = (entry: PeerTurn) => entry.timeToFirstTokenMs;
  const rate = (entry: PeerTurn) => entry.decodeTokensPerSecond;
  const paths = [SPARK_WS, SPARK_CHAT, LLAMA_SERVER];
  const chart = (
    file: string,
    title: string,
    yLabel: string,
    pick: (entry: PeerTurn) => number,
  ) => ({
    file,
    title,
    kind: "line" as const,
    xLabel: "context (prompt tokens)",
    yLabel,
    series: paths.map((path) => ({
      name: path,
      points: turns
        .filter((entry) => entry.path === path)
        .map((entry) => [entry.promptTokens, round(pick(entry), 3)] as [number, number]),
    })),
  });
  return {
    scenario: 5,
    id: "peer-llama-server",
    title: "Peer: llama-server",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures: [
      figure("follow-up TTFT, Spark WebSocket", round(mean(SPARK_WS, ttft), 2), "ms"),
      figure("follow-up TTFT, Spark Chat Completions", round(mean(SPARK_CHAT, ttft), 2), "ms"),
      figure("follow-up TTFT, llama-server", round(mean(LLAMA_SERVER, ttft), 2), "ms"),
      figure(
        "TTFT ratio, Spark WebSocket / llama-server",
        round(mean(SPARK_WS, ttft) / mean(LLAMA_SERVER, ttft), 3),
        "×",
      ),
      figure("decode tokens/s, Spark WebSocket", round(mean(SPARK_WS, rate), 1), "tokens/s"),
      figure("decode tokens/s, llama-server", round(mean(LLAMA_SERVER, rate), 1), "tokens/s"),
      figure(
        "decode ratio, Spark WebSocket / llama-server",
        round(mean(SPARK_WS, rate) / mean(LLAMA_SERVER, rate), 3),
        "×",
      ),
    ],
    tables: [
      {
        title: "Per turn",
        columns: [
          "path",
          "turn",
          "prompt tokens",
          "cached tokens",
          "output tokens",
          "TTFT ms",
          "decode tokens/s",
        ],
        rows: turns.map((entry) => [
          entry.path,
          entry.turn,
          entry.promptTokens,
          entry.cachedTokens,
          entry.outputTokens,
          round(entry.timeToFirstTokenMs, 2),
          round(entry.decodeTokensPerSecond, 1),
        ]),
      },
    ],
    charts: [
      chart(
        "peer-ttft-by-context.svg",
        "Time to first token by context: Spark vs llama-server",
        "time to first token (ms)",
        ttft,
      ),
      chart(
        "peer-decode-by-context.svg",
        "Decode tokens/s by context: Spark vs llama-server",
        "tokens/s (client-observed)",
        rate,
      ),
    ],
    notes: [
      "Same GGUF file, same thread count for generation and prompt processing, one sequence (Spark) / one slot (llama-server), temperature 0, the same user messages. Each server is started fresh and warmed up with one short request.",
      "Both servers apply the model's chat template their own way (Spark through node-llama-cpp's chat wrapper, llama-server through its Jinja engine), so prompt token counts can differ by a few tokens per message; the per-turn table shows them.",
      "TTFT = request sent → first content delta, client side. Decode tokens/s = (output tokens − 1) / (first → last delta), client side, the same formula for both servers. Means over follow-up turns (2..N).",
      "llama-server closes a kept-alive connection after a streamed response now and then, so its client opens a fresh loopback connection per turn (about 0.1 ms, inside its TTFT); Spark's stateless client keeps one alive.",
      "llama-server keeps the previous conversation in its slot (cache_prompt), so its follow-up turns also evaluate only the new tokens: this compares serving paths and llama.cpp bindings at equal engine work.",
    ],
    data: { turns },
  };
}
