// Passes when valid ports parse and every malformed or out-of-range one throws a RangeError.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { parsePort } = await import(pathToFileURL(path.resolve("src/parse-port.mjs")).href);
assert.equal(parsePort("80"), 80);
assert.equal(parsePort("1"), 1);
assert.equal(parsePort("65535"), 65535);
for (const bad of ["80abc", "0", "70000", "", "8.5", " 80", "-1", "1e3", "0x50"]) {
  assert.throws(() => parsePort(bad), RangeError, `${JSON.stringify(bad)} must throw a RangeError`);
}
