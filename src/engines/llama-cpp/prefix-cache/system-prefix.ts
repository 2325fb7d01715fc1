// Where a chat prompt's stable prefix ends: the tokens its leading system messages and tools
// render to (what every conversation of an agent shares), found by rendering them alone once per
// distinct system prompt and tools and comparing with the whole prompt.
import { createHash } from "node:crypto";
import type { Token } from "node-llama-cpp";
import type { EngineRequest } from "../../engine.ts";

/** Distinct system prompts remembered (an agent has one or two; a gateway's tenants a few). */
const REMEMBERED = 32;

export class SystemPrefixTokens {
  private readonly rendered = new Map<string, readonly Token[] | undefined>();

  /** `render` gives the prompt a request renders to; it may throw (a template refusing it). */
  constructor(private readonly render: (request: EngineRequest) => readonly Token[]) {}

  /**
   * The rendering of the request's system messages and tools, without the rest of the
   * conversation; undefined when the request is only that (or not a chat), or it does not render.
   */
  for(request: EngineRequest): readonly Token[] | undefined {
    if (request.completion !== undefined) return undefined;
    let leading = 0;
    while (leading < request.messages.length && request.messages[leading]?.role === "system")
      leading += 1;
    if (leading === request.messages.length) return undefined;
    const systemOnly: EngineRequest = {
      ...request,
      messages: request.messages.slice(0, leading),
      continueFinalMessage: false,
    };
    const key = createHash("sha256")
      .update(JSON.stringify([systemOnly.messages, request.tools ?? [], request.toolChoice ?? ""]))
      .digest("hex");
    if (this.rendered.has(key)) return this.rendered.get(key);
    let tokens: readonly Token[] | undefined;
    try {
      tokens = this.render(systemOnly);
    } catch {
      tokens = undefined;
    }
    if (this.rendered.size >= REMEMBERED) {
      const oldest = this.rendered.keys().next().value;
      if (oldest !== undefined) this.rendered.delete(oldest);
    }
    this.rendered.set(key, tokens);
    return tokens;
  }
}
