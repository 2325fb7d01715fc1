// Passes when calculateTotal is defined, used by cart and receipt, and calc_total is gone.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const load = (file) => import(pathToFileURL(path.resolve(file)).href);
const pricing = await load("src/pricing.mjs");
assert.equal(typeof pricing.calculateTotal, "function", "pricing.mjs exports calculateTotal");
assert.equal(pricing.calc_total, undefined, "calc_total is no longer exported");
const items = [
  { name: "pen", price: 150, quantity: 2 },
  { name: "pad", price: 400, quantity: 1 },
];
const { Cart } = await load("src/cart.mjs");
const cart = new Cart();
for (const item of items) cart.add(item);
assert.equal(cart.total(), 700);
const { receipt } = await load("src/receipt.mjs");
assert.match(receipt(items), /total: 700$/);
for (const file of readdirSync("src")) {
  const text = readFileSync(path.join("src", file), "utf8");
  assert.ok(!text.includes("calc_total"), `src/${file} still mentions calc_total`);
}
