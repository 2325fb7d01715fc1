// The items of a transcript while one event is folded into them: copied on the first write only,
// with every item added or changed recorded, so a surface can draw just those.
import type { TranscriptChange, TranscriptItem } from "./transcript-items.ts";

export class ItemEdit {
  readonly changes: TranscriptChange[] = [];
  private copy: TranscriptItem[] | undefined;

  constructor(private readonly source: readonly TranscriptItem[]) {}

  /** The items now: the very same array when nothing changed. */
  items(): readonly TranscriptItem[] {
    return this.copy ?? this.source;
  }

  last(): TranscriptItem | undefined {
    return this.items().at(-1);
  }

  some(test: (item: TranscriptItem) => boolean): boolean {
    return this.items().some(test);
  }

  findLastIndex(test: (item: TranscriptItem) => boolean): number {
    return this.items().findLastIndex(test);
  }

  append(item: TranscriptItem): void {
    this.writable().push(item);
    this.changes.push({ type: "added", item });
  }

  /** Puts `item` before the one at `index` (at the end when undefined). */
  insert(index: number | undefined, item: TranscriptItem): void {
    if (index === undefined) {
      this.append(item);
      return;
    }
    this.writable().splice(index, 0, item);
    this.changes.push({ type: "added", item });
  }

  /** Replaces the last item; `appended` is the text the change added to the end of an answer. */
  replaceLast(item: TranscriptItem, appended?: string): void {
    const items = this.items();
    if (items.length > 0) this.replaceAt(items.length - 1, item, appended);
  }

  /** Replaces every item `test` picks with what `change` makes of it. */
  replaceWhere(
    test: (item: TranscriptItem) => boolean,
    change: (item: TranscriptItem) => TranscriptItem,
  ): void {
    this.items().forEach((item, index) => {
      if (test(item)) this.replaceAt(index, change(item));
    });
  }

  private replaceAt(index: number, item: TranscriptItem, appended?: string): void {
    const items = this.writable();
    const previous = items[index];
    if (previous === undefined) return;
    items[index] = item;
    // Two changes of one item in one event are one change, from the item the event found.
    const earlier = this.changes.findIndex((change) => change.item === previous);
    const first = this.changes[earlier];
    if (first === undefined)
      this.changes.push({
        type: "changed",
        item,
        previous,
        ...(appended === undefined ? {} : { appended }),
      });
    else this.changes[earlier] = { ...first, item };
  }

  private writable(): TranscriptItem[] {
    this.copy ??= this.source.slice();
    return this.copy;
  }
}
