// Times each step of one follow-up turn on the WebSocket path, in this process and many times
// over, so the gateway's own microseconds per step can be read apart from engine and socket time
// (docs/serving-path-cost.md). `npx tsx bench/gateway-turn-steps.ts [turns]`.
// Each step is the gateway's real code fed what scenario 1 sends at full size: a follow-up frame
// with a ~6 KB user message chained to a stored ~128 KB conversation, 16 single-token deltas.
import type { ChatMessage } from "../src/engines/engine.ts";
import { createSyntheticEngine } from "../src/engines/synthetic/synthetic-engine.ts";
import { DeltaCoalescer } from "../src/gateway/wire/delta-coalescer.ts";
import { eventJson } from "../src/gateway/wire/event-json.ts";
import { GatewayClock } from "../src/gateway/gateway-clock.ts";
import { modelsFromEngine } from "../src/gateway/gateway-models.ts";
import { LiveResponse } from "../src/gateway/turn/live-response.ts";
import { prepareTurn } from "../src/gateway/turn/prepare-turn.ts";
import { ResponseEventWriter } from "../src/gateway/turn/response-event-writer.ts";
import { defaultServeConfig } from "../src/gateway/serve-config.ts";
import { MemoryGatewayStore } from "../src/gateway/store/memory-gateway-store.ts";
import { sparkTimings } from "../src/gateway/turn/spark-timings.ts";
import { parseClientFrame } from "../src/gateway/ws/ws-frame-parser.ts";
import type { ResponseCreateBody } from "../src/protocol/responses-requests.ts";
import { readCorpus } from "./lib/conversation-corpus.ts";

const TURNS = Number(process.argv[2] ?? 2000);
const TOKENS_PER_TURN = 16;
const USER_MESSAGE_BYTES = 6 * 1024;
const STORED_MESSAGES = 40;

const STEPS = [
  "parse + validate frame",
  "prepareTurn (chain, input, tools, limit, model, skeleton)",
  "response.created + in_progress",
  "16 deltas (writer, replay, coalescer, JSON)",
  "closing events (done ×3, response.completed)",
  "store.put + reply",
] as const;
type Step = (typeof STEPS)[number];

/** Bytes the "socket" was handed; written so nothing is optimised away. */
let sentBytes = 0;

async function main(): Promise<void> {
  const corpus = await readCorpus(STORED_MESSAGES * USER_MESSAGE_BYTES + USER_MESSAGE_BYTES);
  const config = defaultServeConfig;
  // Two entries: the stored previous (used every turn, so never the least recent) and the latest.
  const store = new MemoryGatewayStore({
    responses: {
      maxEntries: 2,
      maxBytes: config.responseStoreMaxBytes,
      ttlMs: config.responseStoreTtlSeconds * 1000,
    },
    liveGraceMs: config.resumeGraceSeconds * 1000,
  });
  const engine = createSyntheticEngine({ tokens: TOKENS_PER_TURN });
  const models = modelsFromEngine(engine);
  const history: ChatMessage[] = [];
  for (let index = 0; index < STORED_MESSAGES; index += 2) {
    const start = index * USER_MESSAGE_BYTES;
    history.push({ role: "user", content: corpus.slice(start, start + USER_MESSAGE_BYTES) });
    history.push({ role: "assistant", content: "x ".repeat(TOKENS_PER_TURN) });
  }
  const previous = await prepareTurn(
    { body: { model: "synthetic", input: "first" }, apiKey: undefined, receivedAt: 0 },
    { models, store, contextLimitTokens: config.contextLimitTokens },
  );
  await store.putResponse({
    id: previous.responseId,
    response: previous.skeleton,
    messages: history,
    sessionKey: previous.sessionKey,
    ownerKey: previous.tenant,
  });
  const frame = Buffer.from(
    JSON.stringify({
      type: "response.create",
      model: "synthetic",
      temperature: 0,
      max_output_tokens: TOKENS_PER_TURN,
      previous_response_id: previous.responseId,
      input: corpus.slice(-USER_MESSAGE_BYTES),
    }),
  );

  const samples = new Map<Step, number[]>(STEPS.map((step) => [step, []]));
  const record = (step: Step, startedAt: number): number => {
    const now = performance.now();
    samples.get(step)?.push((now - startedAt) * 1000);
    return now;
  };
  const cpuBefore = process.cpuUsage();
  for (let turn = 0; turn < TURNS; turn += 1) {
    let at = performance.now();
    const event = parseClientFrame(frame, false, config.maxFrameBytes);
    at = record("parse + validate frame", at);
    if (event.type !== "response.create") throw new Error("not a create");
    const { type: _type, stream_id: _streamId, ...body } = event;
    const turnBody: ResponseCreateBody = body;
    const prepared = await prepareTurn(
      { body: turnBody, apiKey: undefined, receivedAt: at },
      { models, store, contextLimitTokens: config.contextLimitTokens },
    );
    at = record("prepareTurn (chain, input, tools, limit, model, skeleton)", at);

    const live = new LiveResponse(
      prepared.responseId,
      undefined,
      turnBody,
      config.replayBufferBytes,
    );
    const coalescer = new DeltaCoalescer(
      {
        bufferedBytes: () => 0,
        write: (written, json) => {
          sentBytes += (json ?? eventJson(written)).length;
        },
        drop: () => {},
      },
      { softBytes: config.sendBufferSoftBytes, hardBytes: config.sendBufferHardBytes },
    );
    live.attach((emitted) => coalescer.push(emitted));
    const clock = new GatewayClock();
    const writer = new ResponseEventWriter(
      prepared.skeleton,
      (emitted) => live.emit(emitted),
      prepared.clientTools,
      clock,
    );
    at = performance.now();
    writer.started();
    record("response.created + in_progress", at);

    let deltaMicros = 0;
    for (let token = 0; token < TOKENS_PER_TURN; token += 1) {
      const deltaAt = performance.now();
      writer.textDelta(token === 0 ? "x" : " x");
      deltaMicros += (performance.now() - deltaAt) * 1000;
      // The writer times its own tick-end flush into the clock.
      const flushedBefore = clock.overheadMs;
      await new Promise<void>((resolve) => process.nextTick(resolve));
      deltaMicros += (clock.overheadMs - flushedBefore) * 1000;
    }
    samples.get("16 deltas (writer, replay, coalescer, JSON)")?.push(deltaMicros);

    at = performance.now();
    const response = writer.finish({
      status: "completed",
      usage: undefined,
      sparkTimings: sparkTimings(undefined, undefined, 1, clock.overheadMs),
    });
    at = record("closing events (done ×3, response.completed)", at);
    const reply = writer.reply();
    await store.putResponse({
      id: prepared.responseId,
      response,
      messages: reply === undefined ? prepared.history : [...prepared.history, reply],
      sessionKey: prepared.sessionKey,
      ownerKey: prepared.tenant,
    });
    record("store.put + reply", at);
    live.finish(undefined);
  }
  const cpu = process.cpuUsage(cpuBefore);
  await engine.dispose();

  const warm = Math.floor(TURNS / 4);
  let total = 0;
  console.log(`${TURNS} follow-up turns (first ${warm} dropped as warm-up), µs per turn:`);
  for (const step of STEPS) {
    const values = (samples.get(step) ?? []).slice(warm).sort((a, b) => a - b);
    const p50 = values[Math.floor(values.length / 2)] ?? Number.NaN;
    const p90 = values[Math.floor(values.length * 0.9)] ?? Number.NaN;
    total += p50;
    console.log(`  ${step.padEnd(58)} p50 ${p50.toFixed(1).padStart(7)}  p90 ${p90.toFixed(1)}`);
  }
  console.log(`  ${"sum of p50s".padEnd(58)}     ${total.toFixed(1).padStart(7)}`);
  console.log(
    `process CPU ${((cpu.user + cpu.system) / TURNS).toFixed(1)} µs per turn (all steps, GC, nextTicks); ${sentBytes} bytes written`,
  );
}

await main();
