// Places the tool documentation right after the first system message, as Qwen's own template does,
// instead of after every leading system message: a client that adds a second developer message
// after its warm-up (Codex: the skills list) then keeps the warm-up's whole prefix cached.
import type { ChatWrapper } from "node-llama-cpp";

/**
 * node-llama-cpp's wrappers insert the tools before the first non-system item, so any system text
 * added later lands in front of them and shifts every token of the tool block. Overriding the one
 * method on this instance keeps each wrapper's own rendering of the tools (delegated to it with
 * the first system message only); wrappers that do not call it are unaffected.
 */
export function documentToolsAfterFirstSystemMessage(chatWrapper: ChatWrapper): ChatWrapper {
  const documentTools = chatWrapper.addAvailableFunctionsSystemMessageToHistory.bind(chatWrapper);
  chatWrapper.addAvailableFunctionsSystemMessageToHistory = (history, functions, options) => {
    const leadingSystem = history.findIndex((item) => item.type !== "system");
    const first = history[0];
    // One system message, or nothing after the system messages: the wrapper's placement is stable.
    if (first === undefined || leadingSystem < 2) return documentTools(history, functions, options);
    const rest = history.slice(leadingSystem);
    const documented = documentTools([first, ...rest], functions, options);
    const splitAt = documented.length - rest.length;
    return [
      ...documented.slice(0, splitAt),
      ...history.slice(1, leadingSystem),
      ...documented.slice(splitAt),
    ];
  };
  return chatWrapper;
}
