// The engine as seen by a response continued on another replica: the same request with the text
// already sent as the assistant's partial answer (continueFinalMessage), so only the rest is
// generated. An engine that cannot continue a partial answer refuses before any output; the
// request is then run again whole and the text already sent is skipped, character for character.
// On greedy decoding both give what the dead replica would have sent; with sampling the rest is a
// new sample from that point (docs/scale-out.md).
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
} from "../../engines/engine.ts";
import { estimateInputTokens } from "../access/limits.ts";

/** How a continued response's rest was produced: by the engine from the answer so far, or by
 * running the request again whole and skipping what was sent (`reason`: the engine's refusal). */
export type ContinuationPath = { how: "engine" } | { how: "rerun"; reason: string };

export function continuationEngine(
  engine: Engine,
  textSent: string,
  onPath: (path: ContinuationPath) => void = () => {},
): Engine {
  async function* stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    if (textSent === "") {
      yield* engine.stream(request, options);
      return;
    }
    // Held until the first output or the end: a refusal comes before any output (after usage
    // and timings, from a router), and is then replaced by the whole request's stream.
    const held: EngineEvent[] = [];
    let refused = false;
    let outputSeen = false;
    for await (const event of engine.stream(continuedRequest(request, textSent), options)) {
      if (!outputSeen && !isOutput(event)) {
        if (event.type === "finish" && event.error?.code === "continuation_unsupported") {
          refused = true;
          onPath({ how: "rerun", reason: event.error.message });
          break;
        }
        held.push(event);
        continue;
      }
      if (!outputSeen) {
        onPath({ how: "engine" });
        yield* held.splice(0);
      }
      outputSeen = true;
      yield event;
    }
    if (!refused) {
      yield* held;
      return;
    }
    yield* skipText(engine.stream(request, options), textSent);
  }
  return {
    kind: engine.kind,
    stream,
    listModels: () => engine.listModels(),
    // The wrapped engine belongs to the registry, which disposes of it.
    dispose: async () => {},
    [Symbol.asyncDispose]: async () => {},
  };
}

function isOutput(event: EngineEvent): boolean {
  return event.type === "text-delta" || event.type.startsWith("tool-call");
}

/** The request with the partial answer last, its output budget reduced by what was sent. */
export function continuedRequest(request: EngineRequest, textSent: string): EngineRequest {
  const sampling = { ...request.sampling };
  if (sampling.maxOutputTokens !== undefined) {
    // The tokens already produced are not known here, only their text: estimated as the gateway
    // estimates input (about four characters a token).
    const spent = estimateInputTokens([{ role: "assistant", content: textSent }], undefined);
    sampling.maxOutputTokens = Math.max(1, sampling.maxOutputTokens - spent);
  }
  return {
    ...request,
    messages: [...request.messages, { role: "assistant", content: textSent }],
    sampling,
    continueFinalMessage: true,
  };
}

/** Drops the first `text.length` characters of the streamed text: what was sent already. */
async function* skipText(
  events: AsyncIterable<EngineEvent>,
  text: string,
): AsyncGenerator<EngineEvent> {
  let skipped = 0;
  for await (const event of events) {
    if (event.type === "text-delta" && skipped < text.length) {
      const take = Math.min(text.length - skipped, event.text.length);
      skipped += take;
      const rest = event.text.slice(take);
      if (rest !== "") yield { ...event, text: rest };
      continue;
    }
    yield event;
  }
}
