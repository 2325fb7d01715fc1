// GET /v1/responses/{id}/input_items: the input a stored response was created with, as OpenAI's
// list (the openai SDK's responses.inputItems.list). A string input is one user message; items
// without an id get one derived from the response's, stable across reads.
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import type { StoredResponse } from "../store/gateway-store.ts";
import { WireError } from "../wire/wire-error.ts";

type InputItem = Record<string, unknown> & { id: string };

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

export function inputItemsOf(stored: StoredResponse): InputItem[] {
  const input: ResponseCreateBody["input"] = stored.input;
  if (input === undefined) return [];
  const items: Array<Record<string, unknown>> =
    typeof input === "string"
      ? [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }]
      : (input as Array<Record<string, unknown>>).map((item) => {
          // A message may come as {role, content} alone, its content a string or parts.
          if (item.type !== undefined && item.type !== "message") return { ...item };
          const content =
            typeof item.content === "string"
              ? [{ type: contentType(item), text: item.content }]
              : item.content;
          return { ...item, type: "message", content };
        });
  return items.map((item, index) => ({
    ...item,
    id: typeof item.id === "string" ? item.id : `msg_${stored.id.replace(/^resp_/, "")}_${index}`,
    ...(item.type === "message" && item.status === undefined ? { status: "completed" } : {}),
  }));
}

function contentType(item: Record<string, unknown>): string {
  return item.role === "assistant" ? "output_text" : "input_text";
}

/** One page of the list: `order` asc|desc (default desc, as OpenAI), `after`, `limit` (1–100). */
export function inputItemsPage(items: InputItem[], query: URLSearchParams): unknown {
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc")
    throw new WireError("invalid_request", "order must be 'asc' or 'desc'.", { param: "order" });
  const limitText = query.get("limit");
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new WireError("invalid_request", `limit must be a whole number from 1 to ${MAX_LIMIT}.`, {
      param: "limit",
    });
  const ordered = order === "asc" ? items : [...items].reverse();
  const after = query.get("after");
  const start = after === null ? 0 : ordered.findIndex((item) => item.id === after) + 1;
  const data = ordered.slice(start, start + limit);
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}
