// Where a quick edit applies: the range it was started on, moved by every change the document
// reports while the edit streams, never found again by its text (an identical line elsewhere is
// another place). A change that touches the selection's own lines ends the anchor: Accept refuses.

/** One change as VS Code reports it (TextDocumentContentChangeEvent's offsets). */
export interface TextChange {
  /** Offset of the replaced range, in the document as the previous changes left it. */
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

export interface TextSpan {
  start: number;
  end: number;
}

export class EditAnchor {
  private start: number;
  private end: number;
  /** The selection's whole lines: from its first line's start to its last line's end. */
  private linesStart: number;
  private linesEnd: number;
  private broken = false;

  /** `start`..`end`: the selection as offsets into `documentText`, the text when it was made. */
  constructor(documentText: string, start: number, end: number) {
    this.start = start;
    this.end = end;
    this.linesStart = documentText.lastIndexOf("\n", start - 1) + 1;
    // A selection of whole lines ends after its last newline: that newline ends its lines.
    const lastCharacter = end > start && documentText[end - 1] === "\n" ? end - 1 : end;
    const newline = documentText.indexOf("\n", lastCharacter);
    this.linesEnd = newline === -1 ? documentText.length : newline;
  }

  /** The selection now, or undefined once a change touched its lines. */
  get span(): TextSpan | undefined {
    return this.broken ? undefined : { start: this.start, end: this.end };
  }

  /** Applies one document change event's changes, in the order VS Code lists them. */
  apply(changes: readonly TextChange[]): void {
    for (const change of changes) {
      if (this.broken) return;
      const changeEnd = change.rangeOffset + change.rangeLength;
      // Touching counts: typing at the end of the selected line, or joining it to the line above,
      // changes that line.
      if (change.rangeOffset <= this.linesEnd && changeEnd >= this.linesStart) {
        this.broken = true;
        return;
      }
      if (change.rangeOffset > this.linesEnd) continue;
      const shift = change.text.length - change.rangeLength;
      this.start += shift;
      this.end += shift;
      this.linesStart += shift;
      this.linesEnd += shift;
    }
  }
}
