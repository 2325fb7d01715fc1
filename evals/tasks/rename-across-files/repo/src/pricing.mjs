// Prices are whole cents.
export function calc_total(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}
