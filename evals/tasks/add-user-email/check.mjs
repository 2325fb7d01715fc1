// Passes when createUser keeps an optional email and formatUser shows it.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const load = (file) => import(pathToFileURL(path.resolve(file)).href);
const { createUser } = await load("src/user.mjs");
const { formatUser } = await load("src/format-user.mjs");
const ada = createUser("Ada", "ada@example.com");
const grace = createUser("Grace");
assert.equal(ada.email, "ada@example.com");
assert.equal(grace.id, ada.id + 1, "ids still count up");
assert.equal(formatUser(ada), "Ada <ada@example.com>");
assert.equal(formatUser(grace), "Grace");
