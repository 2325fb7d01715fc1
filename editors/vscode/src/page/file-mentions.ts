// `@file` in the Ask box (page side): typing `@` and part of a path lists matching workspace files
// under the box (asked of the extension, which asks the session); ↑/↓ move, Enter or Tab or a
// click chooses, Esc closes. A chosen file becomes a chip above the box (× removes it) and is
// sent with the next question.
import { mentionAt, withoutMention } from "../core/ask-files.ts";
import type { PageMessage } from "../core/ask-messages.ts";

/** How long typing pauses before the files are asked for (ms). */
const LOOKUP_DELAY_MS = 80;

export class FileMentions {
  private chosen: string[] = [];
  private shown: string[] = [];
  private highlighted = 0;
  private latestRequest = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly prompt: HTMLTextAreaElement,
    private readonly chips: HTMLElement,
    private readonly list: HTMLElement,
    private readonly post: (message: PageMessage) => void,
  ) {
    prompt.addEventListener("input", () => this.lookUpSoon());
    // Registered before the page's Enter-sends handler: while the list is open Enter chooses.
    prompt.addEventListener("keydown", (event) => this.onKey(event));
    prompt.addEventListener("blur", () => setTimeout(() => this.close(), 150));
  }

  /** The chosen files, taken for a question being sent. */
  take(): string[] {
    const files = this.chosen;
    this.chosen = [];
    this.renderChips();
    return files;
  }

  /** The extension's answer to a lookup; only the latest one is shown. */
  receive(requestId: number, files: readonly string[]): void {
    if (
      requestId !== this.latestRequest ||
      mentionAt(this.prompt.value, this.caret()) === undefined
    )
      return;
    this.shown = [...files];
    this.highlighted = 0;
    this.renderList();
  }

  private caret(): number {
    return this.prompt.selectionStart ?? this.prompt.value.length;
  }

  private lookUpSoon(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const mention = mentionAt(this.prompt.value, this.caret());
    if (mention === undefined) {
      this.close();
      return;
    }
    this.timer = setTimeout(() => {
      this.latestRequest += 1;
      this.post({ type: "find-files", requestId: this.latestRequest, query: mention.query });
    }, LOOKUP_DELAY_MS);
  }

  private onKey(event: KeyboardEvent): void {
    if (this.shown.length === 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.highlighted = (this.highlighted + step + this.shown.length) % this.shown.length;
      this.renderList();
    } else if (event.key === "Enter" || event.key === "Tab") {
      const file = this.shown[this.highlighted];
      if (file !== undefined) this.choose(file);
    } else if (event.key === "Escape") {
      this.close();
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  private choose(file: string): void {
    const caret = this.caret();
    const mention = mentionAt(this.prompt.value, caret);
    if (mention !== undefined) {
      const next = withoutMention(this.prompt.value, mention, caret);
      this.prompt.value = next.text;
      this.prompt.setSelectionRange(next.caret, next.caret);
    }
    if (!this.chosen.includes(file)) this.chosen.push(file);
    this.renderChips();
    this.close();
    this.prompt.focus();
  }

  private close(): void {
    this.shown = [];
    this.renderList();
  }

  private renderList(): void {
    this.list.replaceChildren(
      ...this.shown.map((file, index) => {
        const row = document.createElement("div");
        row.className = index === this.highlighted ? "file-option highlighted" : "file-option";
        row.textContent = file;
        row.setAttribute("role", "option");
        // mousedown, not click: the box's blur would close the list before a click lands.
        row.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.choose(file);
        });
        return row;
      }),
    );
    this.list.hidden = this.shown.length === 0;
  }

  private renderChips(): void {
    this.chips.replaceChildren(
      ...this.chosen.map((file) => {
        const chip = document.createElement("span");
        chip.className = "file-chip";
        chip.textContent = `@${file} `;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "×";
        remove.title = `Remove ${file}`;
        remove.addEventListener("click", () => {
          this.chosen = this.chosen.filter((chosen) => chosen !== file);
          this.renderChips();
        });
        chip.appendChild(remove);
        return chip;
      }),
    );
    this.chips.hidden = this.chosen.length === 0;
  }
}
