// Up-arrow history of sent messages: walking back keeps the unsent draft, walking forward past the
// newest entry gives it back.

export class InputHistory {
  private readonly entries: string[] = [];
  /** entries.length means "at the draft". */
  private position = 0;
  private draft = "";

  constructor(private readonly limit = 500) {}

  add(text: string): void {
    if (text.trim() !== "" && this.entries.at(-1) !== text) this.entries.push(text);
    if (this.entries.length > this.limit) this.entries.shift();
    this.position = this.entries.length;
    this.draft = "";
  }

  /** The older entry, or undefined at the oldest. `current` is kept as the draft when leaving it. */
  previous(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    this.position -= 1;
    return this.entries[this.position];
  }

  /** The newer entry, the draft past the newest, or undefined when already at the draft. */
  next(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position += 1;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}
