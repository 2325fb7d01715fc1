/** The items on page `page` (numbered from 1) when `items` are split into pages of `size`. */
export function pageOf(items, page, size) {
  const start = page * size;
  return items.slice(start, start + size);
}

export function pageCount(total, size) {
  return Math.ceil(total / size);
}
