// Object ids in OpenAI's style (resp_…, msg_…, fc_…, chatcmpl-…): a prefix and 24 random hex digits.
import { randomBytes } from "node:crypto";

export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}
