// Sampling fields beyond temperature and top_p, as the wire spells them: top_k and min_p (not
// OpenAI's, but llama-server's and vLLM's, and sent by llama.vscode, Continue and opencode for
// local models) on every endpoint, and Chat Completions' presence and frequency penalties.
import { z } from "zod";

/** top_k: 0 or -1 (vLLM's spelling) keeps every token; min_p: 0 keeps every token. */
export const topKMinPFields = {
  top_k: z.number().int().min(-1).nullable().optional(),
  min_p: z.number().min(0).max(1).nullable().optional(),
};

export const penaltyFields = {
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
};
