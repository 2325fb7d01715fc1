// Passes when greet takes an optional greeting and the old one-argument calls still work.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const load = (file) => import(pathToFileURL(path.resolve(file)).href);
const { greet } = await load("src/greet.mjs");
assert.equal(greet("Ada"), "Hello, Ada!");
assert.equal(greet("Ada", "Hi"), "Hi, Ada!");
assert.equal(greet("Grace", undefined), "Hello, Grace!");
const { welcome } = await load("src/welcome.mjs");
assert.equal(welcome({ name: "Ada", unread: 2 }), "Hello, Ada! You have 2 unread messages.");
