// Passes when pages are numbered from 1 and the last, partial page is kept.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { pageOf, pageCount } = await import(pathToFileURL(path.resolve("src/paginate.mjs")).href);
const items = [1, 2, 3, 4, 5];
assert.deepEqual(pageOf(items, 1, 2), [1, 2]);
assert.deepEqual(pageOf(items, 2, 2), [3, 4]);
assert.deepEqual(pageOf(items, 3, 2), [5]);
assert.deepEqual(pageOf(items, 4, 2), []);
assert.equal(pageCount(items.length, 2), 3);
