import { calculateTotal } from "./pricing.mjs";

export function receipt(items) {
  const lines = items.map((item) => `${item.quantity} x ${item.name}`);
  return [...lines, `total: ${calculateTotal(items)}`].join("\n");
}
