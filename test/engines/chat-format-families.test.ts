// Each model family's chat format through Spark's embedded-engine code (llama.cpp's common/chat
// compiled into native/chat-format), on a vocab-only GGUF carrying the family's real template:
// the prompt for {system, tools, user, assistant tool call, tool result} equals the template as
// Hugging Face's apply_chat_template renders it (Python's jinja2), whitespace aside; the family's
// own rendering of a call (a multi-line apply_patch) parses back to that call; reasoning parses
// as reasoning. Needs python3 with jinja2: skips saying why without it, fails under CI=true.
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ToolDefinition } from "../../src/engines/engine.ts";
import type { ChatFormat } from "../../src/engines/llama-cpp/chat-format/chat-format.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { openModelChatFormat } from "../../src/engines/llama-cpp/chat-format/open-model-chat-format.ts";
import {
  chatFamilies,
  chatFamilyGaps,
  type ChatFamily,
  type ChatFamilyCheck,
} from "./support/chat-families.ts";
import { familyVocabGguf, llamaModelsFolder } from "./support/family-vocab-gguf.ts";
import { startJinja2Renderer, type Jinja2Renderer } from "./support/jinja2-renderer.ts";

/**
 * The run's own time: this llama.cpp release's Jinja runtime reads the clock itself for
 * strftime_now (the machine's local date; the request's `now` does not reach it), so a fixed date
 * here matched gpt-oss's "Current date" only on that day (a full run failed after midnight).
 */
const now = Date.now();

/** The first Python that imports jinja2: PATH's (pyenv, venv), else Debian's python3-jinja2. */
const python = ["python3", "/usr/bin/python3"].find(
  (candidate) => spawnSync(candidate, ["-c", "import jinja2"]).status === 0,
);

function missingReason(): string | undefined {
  const addon = loadChatFormatAddon();
  const reason =
    python === undefined
      ? "python3 with jinja2 is not installed (apt-get install python3-jinja2)"
      : addon.addon === undefined
        ? addon.reason
        : undefined;
  if (reason !== undefined && process.env.CI === "true")
    throw new Error(`The chat-format family tests must run in CI, but ${reason}.`);
  return reason;
}

const skipReason = missingReason();
for (const family of chatFamilies)
  for (const [check, gap] of Object.entries(chatFamilyGaps[family.name] ?? {}))
    console.log(`chat-format family gap, ${family.name} ${check}: ${gap.reason}`);
if (skipReason !== undefined) console.log(`chat-format family tests skipped: ${skipReason}`);

const tools: ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read a file of the workspace.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "apply_patch",
    description: "Apply a patch to files of the workspace.",
    parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] },
  },
];
const patch =
  "*** Begin Patch\n*** Update File: src/add.ts\n@@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n*** End Patch";
const fileText = '1\texport const add = (a, b) => a - b;\n2\t// "quoted" \\ text\n';

function conversation(family: ChatFamily): ChatMessage[] {
  const id = family.callId("read_file", 0);
  return [
    { role: "system", content: "You are Spark, a coding agent." },
    { role: "user", content: "Fix the bug in src/add.ts." },
    {
      role: "assistant",
      content: "",
      // Goes back to the template, which decides whether the model sees it again.
      reasoning: "I need to read the file first.",
      toolCalls: [{ id, name: "read_file", arguments: '{"path":"src/add.ts"}' }],
    },
    { role: "tool", toolCallId: id, name: "read_file", content: fileText },
  ];
}

/**
 * The messages as a Hugging Face user passes them: arguments as objects (as text for templates that
 * print them as they are), reasoning as `reasoning_content` (Qwen3, MiniMax, GLM, Nemotron) and
 * `thinking` (gpt-oss), or as Mistral's `thinking` content block.
 */
function huggingFaceMessages(family: ChatFamily, messages: ChatMessage[]): object[] {
  return messages.map((message) => {
    if (message.role === "assistant")
      return {
        role: "assistant",
        ...(message.reasoning === undefined
          ? { content: message.content }
          : family.thinkingBlocks === true
            ? {
                content: [
                  { type: "thinking", thinking: message.reasoning },
                  ...(message.content === "" ? [] : [{ type: "text", text: message.content }]),
                ],
              }
            : {
                content: message.content,
                reasoning_content: message.reasoning,
                thinking: message.reasoning,
              }),
        ...(message.toolCalls === undefined
          ? {}
          : {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: {
                  name: call.name,
                  arguments:
                    family.stringArguments === true
                      ? call.arguments
                      : (JSON.parse(call.arguments) as object),
                },
              })),
            }),
      };
    if (message.role === "tool")
      return {
        role: "tool",
        tool_call_id: message.toolCallId,
        name: message.name,
        content: message.content,
      };
    return message;
  });
}

/**
 * Renders in the file's one Python process, or answers from an earlier identical request: a
 * family's tests render the same history several times.
 */
const jinja2Renders = new Map<string, Promise<string>>();
let jinja2: Jinja2Renderer | undefined;

function renderWithJinja2(
  family: ChatFamily,
  template: string,
  messages: ChatMessage[],
  addGenerationPrompt: boolean,
): Promise<string> {
  const request = {
    template,
    messages: huggingFaceMessages(family, messages),
    tools: tools.map((tool) => ({ type: "function", function: tool })),
    add_generation_prompt: addGenerationPrompt,
    bos_token: family.bosToken ?? "",
    eos_token: family.eosToken,
    now,
  };
  const input = JSON.stringify(request);
  let rendered = jinja2Renders.get(input);
  if (rendered === undefined) {
    jinja2 ??= startJinja2Renderer(python ?? "python3");
    rendered = jinja2.render(request);
    jinja2Renders.set(input, rendered);
  }
  return rendered;
}

/** Whitespace and dates aside (llama.cpp passes today's date where Hugging Face passes none). */
const normalized = (text: string): string =>
  text
    .replace(/\b\d{1,2} [A-Z][a-z]{2} \d{4}\b/g, "<date>")
    .replace(/\s+/g, " ")
    .trim();

/** The length of the texts' common prefix, backed up to the start of a special token it cuts. */
function commonPrefixLength(left: string, right: string): number {
  let index = 0;
  while (index < left.length && index < right.length && left[index] === right[index]) index++;
  for (const [open, close] of [
    ["<", ">"],
    ["[", "]"],
  ] as const) {
    const opened = left.lastIndexOf(open, index - 1);
    if (opened >= 0 && opened > left.lastIndexOf(close, index - 1) && index - opened < 40)
      return opened;
  }
  return index;
}

/**
 * What the model generates for a turn: the family's rendering of it after the generation prompt
 * (found as llama.cpp finds it: what add_generation_prompt adds), up to its first stop token. The
 * turn is located by that prompt, not by the common prefix with the prompt rendering, since some
 * templates end the previous turn differently once an assistant turn follows (Hermes-2-Pro's
 * `</tool_response>\n<|im_end|>`). A template that opens a thinking block in the generation prompt
 * but leaves reasoning out of past turns (DeepSeek R1's `<think>\n`) renders no text for what the
 * model writes first: the reasoning and the end tag the engine names are put back in front.
 * Prefixes are compared by special token, not by character (`<SPECIAL_11>` after `<SPECIAL_12>`).
 */
async function generatedTurn(
  family: ChatFamily,
  template: string,
  turn: Extract<ChatMessage, { role: "assistant" }>,
  history: ChatMessage[],
  thinkingEndTag: string,
): Promise<string> {
  const [withPrompt, withoutPrompt, after] = await Promise.all([
    renderWithJinja2(family, template, history, true),
    renderWithJinja2(family, template, history, false),
    renderWithJinja2(family, template, [...history, turn], false),
  ]);
  const generationPrompt = withPrompt.slice(commonPrefixLength(withoutPrompt, withPrompt));
  // The first occurrence past the history: gpt-oss repeats `<|start|>assistant` within a turn.
  const turnStart = after.indexOf(generationPrompt, commonPrefixLength(withoutPrompt, after));
  let text: string;
  if (generationPrompt !== "" && turnStart >= 0)
    text = after.slice(turnStart + generationPrompt.length);
  else {
    text = after.slice(commonPrefixLength(withPrompt, after));
    const promptRest = withPrompt.slice(commonPrefixLength(withPrompt, after));
    if (thinkingEndTag !== "" && /<think>\s*$/.test(promptRest) && !text.includes(thinkingEndTag))
      text = `${turn.reasoning ?? ""}${thinkingEndTag}${text}`;
  }
  // Generation stops at the first stop token (DeepSeek R1 renders an empty turn after a call's).
  const stop = Math.min(
    ...family.endOfTurn.map((marker) => text.indexOf(marker)).filter((index) => index >= 0),
  );
  if (Number.isFinite(stop)) text = text.slice(0, stop);
  return text.trimEnd();
}

/**
 * Runs a check; one recorded in chatFamilyGaps must fail as recorded, so the gap is re-verified on
 * every run and its closing (a newer llama.cpp) fails the test until the entry goes.
 */
async function check(
  family: ChatFamily,
  name: ChatFamilyCheck,
  body: () => Promise<void> | void,
): Promise<void> {
  const gap = chatFamilyGaps[family.name]?.[name];
  if (gap === undefined) return body();
  let failure: unknown;
  try {
    await body();
  } catch (error) {
    failure = error;
  }
  expect(
    failure,
    `${family.name} ${name} passes now: remove its entry from chatFamilyGaps`,
  ).toBeInstanceOf(Error);
  expect((failure as Error).message).toContain(gap.seen);
}

describe.skipIf(skipReason !== undefined)(
  "chat formats of each model family (llama.cpp's common/chat)",
  () => {
    let models: string;
    beforeAll(async () => {
      models = await llamaModelsFolder(chatFamilies.map((family) => family.vocab));
    }, 120_000);
    afterAll(() => {
      jinja2?.close();
    });

    // Opened once per family and shared by its three tests: opening it is most of a test's time
    // (its vocab GGUF is written once per machine: familyVocabGguf), and a ChatFormat holds no
    // state between calls.
    const openedFormats = new Map<string, Promise<{ format: ChatFormat; template: string }>>();
    function open(family: ChatFamily): Promise<{ format: ChatFormat; template: string }> {
      let opening = openedFormats.get(family.name);
      if (opening === undefined) {
        opening = openFormat(family);
        openedFormats.set(family.name, opening);
      }
      return opening;
    }

    async function openFormat(
      family: ChatFamily,
    ): Promise<{ format: ChatFormat; template: string }> {
      const template = await readFile(join(models, "templates", family.template), "utf8");
      const gguf = await familyVocabGguf({
        ...family,
        vocab: join(models, `ggml-vocab-${family.vocab}.gguf`),
        template,
      });
      const opened = await openModelChatFormat(gguf);
      if (opened.format === undefined) throw new Error(opened.reason);
      expect(opened.toolsUnsupportedReason).toBeUndefined();
      return { format: opened.format, template };
    }

    describe.each(chatFamilies)("$name", (family) => {
      it("renders the tool conversation as the template does", async () => {
        const { format, template } = await open(family);
        const messages = conversation(family);
        await check(family, "render", async () => {
          const rendered = format.render({ messages, tools, now: new Date(now) });
          const expected = await renderWithJinja2(family, template, messages, true);
          expect(normalized(rendered.prompt)).toBe(normalized(expected));
          // The tool's text reaches the model as it is, unless the template itself encodes it.
          if (expected.includes('// "quoted" \\ text'))
            expect(rendered.prompt).toContain('// "quoted" \\ text');
        });
      });

      it("parses the family's own rendering of a multi-line apply_patch call", async () => {
        const { format, template } = await open(family);
        const history = conversation(family).slice(
          0,
          family.callInFirstTurn === undefined ? undefined : 2,
        );
        const rendered = format.render({ messages: history, tools, now: new Date(now) });
        const reasoning = "The minus sign is the bug.";
        const turn = {
          role: "assistant" as const,
          content: "",
          reasoning,
          toolCalls: [
            {
              id: family.callId("apply_patch", 1),
              name: "apply_patch",
              arguments: JSON.stringify({ patch }),
            },
          ],
        };
        const output = await generatedTurn(
          family,
          template,
          turn,
          history,
          rendered.thinkingEndTags[0] ?? "",
        );
        await check(family, "parse", () => {
          const parsed = format.parser(rendered).parse(output, false);
          expect(parsed.toolCalls, `output: ${JSON.stringify(output)}`).toHaveLength(1);
          expect(parsed.toolCalls[0]?.name).toBe("apply_patch");
          expect(JSON.parse(parsed.toolCalls[0]?.arguments ?? "")).toEqual({ patch });
          expect(parsed.content.trim()).toBe("");
          // Templates that keep the reasoning before a call render it; it comes back as reasoning.
          expect(parsed.reasoning.trim()).toBe(output.includes(reasoning) ? reasoning : "");
        });
      });

      it("parses reasoning as reasoning, never as answer text", async () => {
        const { format, template } = await open(family);
        const history = conversation(family);
        const rendered = format.render({ messages: history, tools, now: new Date(now) });
        const reasoning = "The add function subtracts.";
        const answer = "The bug is the minus sign.";
        let output = await generatedTurn(
          family,
          template,
          { role: "assistant", content: answer, reasoning },
          history,
          rendered.thinkingEndTags[0] ?? "",
        );
        if (!output.includes(reasoning)) {
          // The template leaves reasoning out of its turns: the tags llama.cpp knows, if any.
          if (!rendered.supportsThinking) return;
          const start = rendered.generationPrompt.trimEnd().endsWith(rendered.thinkingStartTag)
            ? ""
            : rendered.thinkingStartTag;
          output = `${start}${reasoning}${rendered.thinkingEndTags[0] ?? ""}${answer}`;
        }
        await check(family, "reasoning", () => {
          const parsed = format.parser(rendered).parse(output, false);
          expect(parsed.reasoning.trim(), `output: ${JSON.stringify(output)}`).toBe(reasoning);
          expect(parsed.content.trim()).toBe(answer);
        });
      });
    });
  },
);
