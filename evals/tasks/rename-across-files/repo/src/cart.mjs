import { calc_total } from "./pricing.mjs";

export class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }

  total() {
    return calc_total(this.items);
  }
}
