// The code in a quick edit's reply, as it streams: the reply itself when it is code, the inside of
// a Markdown fence wrapping it, or, for a chatty reply ("Sure! Here is the updated code: ```js …```
// This doubles the number."), the inside of its one fence, without the prose around it.

const OPENING_FENCE = /^[ \t]*```[\w+-]*[ \t]*$/;
const CLOSING_FENCE = /^[ \t]*```[ \t]*$/;

/**
 * `reply` is the whole reply so far; `selection` the code being edited. A selection that holds a
 * fence itself (Markdown) is edited as text: only a fence around the whole reply is removed then.
 */
export function replyCode(reply: string, selection: string): string {
  const wrapped = unwrapWholeReply(reply);
  if (wrapped !== undefined) return wrapped;
  if (selection.includes("```")) return reply;
  return fencedBlock(reply) ?? reply;
}

/** The reply opened with a fence: its inside, also while the closing fence is still arriving. */
function unwrapWholeReply(reply: string): string | undefined {
  const opening = /^\s*```[\w+-]*[ \t]*\n/.exec(reply);
  if (opening === null) return undefined;
  const body = reply.slice(opening[0].length);
  const closing = body.lastIndexOf("```");
  if (closing !== -1 && body.slice(closing + 3).trim() === "")
    return body.slice(0, closing).replace(/\n$/, "");
  // The closing fence may be arriving: hide a trailing partial one.
  return body.replace(/\n`{1,3}$/, "");
}

/**
 * Prose, then one fence on a line of its own: the lines inside it (so far, while it streams).
 * Undefined when there is no fence, or more than one block (which one is the edit is a guess).
 */
function fencedBlock(reply: string): string | undefined {
  const lines = reply.split("\n");
  const start = lines.findIndex((line) => OPENING_FENCE.test(line));
  if (start === -1) return undefined;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => CLOSING_FENCE.test(line));
  if (end === -1) {
    // Still streaming inside the fence: a last line that may become the closing fence (empty, or
    // backticks so far) is hidden until the next line shows what it was.
    const last = rest.at(-1) ?? "";
    if (/^[ \t]*`{0,3}$/.test(last)) rest.pop();
    return rest.join("\n");
  }
  const after = rest.slice(end + 1);
  if (after.some((line) => OPENING_FENCE.test(line) && line.trim() !== "```")) return undefined;
  if (after.some((line) => CLOSING_FENCE.test(line))) return undefined;
  return rest.slice(0, end).join("\n");
}
