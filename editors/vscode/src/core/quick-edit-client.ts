// Quick edit: the selected code and an instruction go to `POST /v1/chat/completions` with the
// selection as `prediction`, so the server's speculative decoding can accept unchanged runs of it;
// the rewritten code streams back, taken out of a Markdown fence (and the prose around it) if the
// model added one.
import { replyCode } from "./reply-code.ts";
import { postEventStream, type SparkServer } from "./spark-http.ts";

export interface QuickEditRequest {
  selection: string;
  instruction: string;
  languageId: string;
  /** A little code around the selection, so the model sees names and indentation. */
  before?: string;
  after?: string;
}

export function buildQuickEditBody(
  request: QuickEditRequest,
  model: string | undefined,
): Record<string, unknown> {
  const surroundings =
    request.before || request.after
      ? `\n\nCode before the selection:\n${request.before ?? ""}\n\nCode after the selection:\n${request.after ?? ""}`
      : "";
  return {
    ...(model ? { model } : {}),
    stream: true,
    temperature: 0,
    messages: [
      {
        role: "system",
        content:
          "You rewrite the user's selected code as the instruction says. Reply with the rewritten code only: no explanation, no Markdown fence.",
      },
      {
        role: "user",
        content: `Instruction: ${request.instruction}\nLanguage: ${request.languageId}${surroundings}\n\nSelected code:\n${request.selection}`,
      },
    ],
    prediction: { type: "content", content: request.selection },
  };
}

/** Yields the edited code as it grows (each value is the whole text so far). */
export async function* streamQuickEdit(
  server: SparkServer,
  request: QuickEditRequest,
  options: { model?: string | undefined; signal: AbortSignal },
): AsyncGenerator<string> {
  let raw = "";
  const body = buildQuickEditBody(request, options.model);
  for await (const chunk of postEventStream(server, "v1/chat/completions", body, options.signal)) {
    const choices = chunk.choices;
    if (!Array.isArray(choices)) continue;
    const delta = (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta;
    if (typeof delta?.content !== "string" || delta.content === "") continue;
    raw += delta.content;
    yield replyCode(raw, request.selection);
  }
}
