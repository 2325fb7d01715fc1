// A loopback Chat Completions server that speaks OpenAI's exact streaming shape and writes text
// that depends only on the messages: a word sequence seeded by a hash of them (or, with
// tool_choice required or named, one call whose arguments come from that sequence). It honours
// max_tokens ("length"), stop sequences (cut before the first match, "stop") and include_usage,
// answers an empty message list with OpenAI's 400 body, and paces tokens so aborts land mid-stream.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { seededRandom } from "./replay-server.ts";

const vocabulary = [
  "river",
  "stone",
  "quick",
  "amber",
  "lantern",
  "orbit",
  "maple",
  "signal",
  "harbor",
  "cobalt",
  "ember",
  "meadow",
  "pixel",
  "tunnel",
  "velvet",
  "willow",
  "zenith",
  "canyon",
  "delta",
  "falcon",
  "glacier",
  "horizon",
  "island",
  "jasmine",
  "kernel",
  "lagoon",
  "mosaic",
  "nectar",
  "onyx",
  "prism",
];

interface ChatRequestBody {
  model?: string;
  messages?: Array<{ role?: string; content?: unknown }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  tools?: Array<{ type?: string; function?: { name?: string; parameters?: ToolParameters } }>;
  tool_choice?: string | { type?: string; function?: { name?: string } };
}

interface ToolParameters {
  properties?: Record<string, unknown>;
  required?: string[];
}

export interface DeterministicUpstreamOptions {
  /** Pause between tokens; small, so aborts land mid-stream without slowing tests. */
  tokenDelayMs?: number;
}

export class DeterministicUpstream {
  /** Streams whose client hung up before the end. */
  abortedStreams = 0;
  completedStreams = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly tokenDelayMs: number,
  ) {}

  static async start(options: DeterministicUpstreamOptions = {}): Promise<DeterministicUpstream> {
    const server = createServer();
    const upstream = new DeterministicUpstream(server, options.tokenDelayMs ?? 2);
    server.on("connection", (socket) => {
      upstream.sockets.add(socket);
      socket.on("close", () => upstream.sockets.delete(socket));
    });
    server.on("request", (request, response) => void upstream.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return upstream;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === "GET" && request.url?.startsWith("/v1/models")) {
      sendJson(response, 200, {
        object: "list",
        data: [{ id: "deterministic", object: "model", created: 0, owned_by: "spark" }],
      });
      return;
    }
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      sendJson(response, 404, openAIError(`Unknown request to ${request.url}`, null));
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequestBody;
    } catch {
      sendJson(
        response,
        400,
        openAIError("We could not parse the JSON body of your request.", null),
      );
      return;
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      sendJson(response, 400, openAIError("[] is too short - 'messages'", "messages"));
      return;
    }
    if (body.stream !== true) {
      sendJson(
        response,
        400,
        openAIError("This test server only streams: set stream to true.", "stream"),
      );
      return;
    }
    await this.stream(body, response);
  }

  private async stream(body: ChatRequestBody, response: ServerResponse): Promise<void> {
    const messages = body.messages ?? [];
    const tokens = generateTokens(JSON.stringify(messages));
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? tokens.length;
    const stops = typeof body.stop === "string" ? [body.stop] : (body.stop ?? []);
    const plan = planOutput(tokens, maxTokens, stops);
    const id = `chatcmpl-${createHash("sha256").update(JSON.stringify(messages)).digest("hex").slice(0, 29)}`;
    const created = 1_756_450_000;
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], usage?: unknown): string =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model: body.model ?? "deterministic",
        service_tier: "default",
        system_fingerprint: "fp_spark_det",
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      })}\n\n`;
    const choice = (delta: unknown, finishReason: string | null = null): unknown => ({
      index: 0,
      delta,
      logprobs: null,
      finish_reason: finishReason,
    });

    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    let closed = false;
    response.on("close", () => {
      closed = true;
      if (!response.writableFinished) this.abortedStreams += 1;
    });
    const call = requiredCall(body, tokens);
    if (call !== undefined) {
      // OpenAI's shape: the call's id, type and name first, then its arguments in pieces.
      response.write(
        chunk([
          choice({
            role: "assistant",
            content: null,
            tool_calls: [
              {
                index: 0,
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: "" },
              },
            ],
            refusal: null,
          }),
        ]),
      );
      for (const piece of call.argumentPieces) {
        await sleep(this.tokenDelayMs);
        if (closed) return;
        response.write(
          chunk([choice({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]),
        );
      }
      if (closed) return;
      response.write(chunk([choice({}, "tool_calls")]));
      response.end("data: [DONE]\n\n");
      this.completedStreams += 1;
      return;
    }
    response.write(chunk([choice({ role: "assistant", content: "", refusal: null })]));
    for (const piece of plan.pieces) {
      await sleep(this.tokenDelayMs);
      if (closed) return;
      response.write(chunk([choice({ content: piece })]));
    }
    if (closed) return;
    response.write(chunk([choice({}, plan.finishReason)]));
    if (includeUsage) {
      const promptTokens = messages.reduce(
        (total, message) =>
          total +
          3 +
          (typeof message.content === "string"
            ? message.content
            : JSON.stringify(message.content ?? "")
          )
            .split(/\s+/)
            .filter(Boolean).length,
        0,
      );
      response.write(
        chunk([], {
          prompt_tokens: promptTokens,
          completion_tokens: plan.pieces.length,
          total_tokens: promptTokens + plan.pieces.length,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        }),
      );
    }
    response.end("data: [DONE]\n\n");
    this.completedStreams += 1;
  }
}

/**
 * With tool_choice "required" or a named function, one call to the first (or named) tool: each
 * required parameter gets a word of the conversation's answer. Its arguments stream in pieces.
 */
function requiredCall(
  body: ChatRequestBody,
  tokens: string[],
): { id: string; name: string; argumentPieces: string[] } | undefined {
  const choice = body.tool_choice;
  const named = typeof choice === "object" ? choice.function?.name : undefined;
  if (choice !== "required" && named === undefined) return undefined;
  const tool = (body.tools ?? []).find(
    (candidate) => named === undefined || candidate.function?.name === named,
  );
  const name = tool?.function?.name;
  if (name === undefined) return undefined;
  const required = tool?.function?.parameters?.required ?? [];
  const argumentsText = JSON.stringify(
    Object.fromEntries(required.map((key, index) => [key, (tokens[index] ?? "word").trim()])),
  );
  const argumentPieces = argumentsText.match(/.{1,6}/gs) ?? [argumentsText];
  const id = `call_${createHash("sha256").update(argumentsText).digest("hex").slice(0, 24)}`;
  return { id, name, argumentPieces };
}

/** The full answer for a conversation: 64 to 127 words, the same every time. */
function generateTokens(seedText: string): string[] {
  const hash = createHash("sha256").update(seedText).digest();
  const random = seededRandom(hash.readUInt32LE(0));
  const length = 64 + (hash.readUInt32LE(4) % 64);
  return Array.from({ length }, (_, index) => {
    const word = vocabulary[Math.floor(random() * vocabulary.length)] ?? "word";
    return index === 0 ? word[0]?.toUpperCase() + word.slice(1) : ` ${word}`;
  });
}

/** Applies max_tokens, then cuts before the first stop match, as OpenAI does. */
function planOutput(
  tokens: string[],
  maxTokens: number,
  stops: string[],
): { pieces: string[]; finishReason: string } {
  const limited = tokens.slice(0, Math.max(0, maxTokens));
  const text = limited.join("");
  const stopAt = Math.min(...stops.map((stop) => text.indexOf(stop)).filter((index) => index >= 0));
  if (Number.isFinite(stopAt)) {
    const pieces: string[] = [];
    let length = 0;
    for (const token of limited) {
      if (length >= stopAt) break;
      pieces.push(token.slice(0, stopAt - length));
      length += token.length;
    }
    return { pieces: pieces.filter((piece) => piece !== ""), finishReason: "stop" };
  }
  return { pieces: limited, finishReason: limited.length < tokens.length ? "length" : "stop" };
}

function openAIError(message: string, param: string | null): unknown {
  return { error: { message, type: "invalid_request_error", param, code: null } };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
