// Warms a freshly started server's paths (WebSocket and SSE, so JIT compilation is not measured)
// and measures how many tokens a byte of the conversation text costs with the served model.
import { readCorpus } from "./conversation-corpus.ts";
import { runResponsesSseTurn } from "./sse-turns.ts";
import { WsTurnClient } from "./ws-turn-client.ts";

const SHORT_BYTES = 256;
const LONG_BYTES = 2304;

/** Returns tokens per byte of corpus text (1 for the byte-level test model, ~0.3 for BPE models). */
export async function warmUpServer(
  server: { url: string; model: string },
  signal: AbortSignal,
): Promise<number> {
  const corpus = await readCorpus(LONG_BYTES * 2);
  const turn = (input: string) =>
    runResponsesSseTurn(
      server.url,
      { model: server.model, input, max_output_tokens: 2, temperature: 0 },
      { signal },
    );
  const short = await turn(corpus.slice(0, SHORT_BYTES));
  const long = await turn(corpus.slice(LONG_BYTES, LONG_BYTES * 2));
  const socket = await WsTurnClient.connect(server.url, signal);
  try {
    await socket.runTurn({ model: server.model, input: "warm up", max_output_tokens: 2 });
  } finally {
    socket.close();
  }
  const difference = (long.inputTokens ?? 0) - (short.inputTokens ?? 0);
  return difference > 0 ? difference / (LONG_BYTES - SHORT_BYTES) : 1;
}
