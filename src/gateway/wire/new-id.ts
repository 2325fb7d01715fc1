// Object ids in OpenAI's style (resp_…, msg_…, fc_…, chatcmpl-…): a prefix and 24 random hex digits.
// The random bytes come from a pool filled 4 KB at a time: one CSPRNG call per ~340 ids instead of
// one (and a buffer) per id, which was a few microseconds of every turn.
import { randomFillSync } from "node:crypto";

const ID_BYTES = 12;
const pool = Buffer.alloc(ID_BYTES * 341);
let offset = pool.length;

export function newId(prefix: string): string {
  if (offset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("hex", offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${prefix}${id}`;
}
