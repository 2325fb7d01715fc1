import { calc_total } from "./pricing.mjs";

export function receipt(items) {
  const lines = items.map((item) => `${item.quantity} x ${item.name}`);
  return [...lines, `total: ${calc_total(items)}`].join("\n");
}
