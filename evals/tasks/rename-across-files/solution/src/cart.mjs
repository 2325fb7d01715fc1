import { calculateTotal } from "./pricing.mjs";

export class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }

  total() {
    return calculateTotal(this.items);
  }
}
