// The completion in flight per document: a new request for the same document cancels the previous
// one at once (the user typed on; its answer is stale), so it frees the document's cached sequence.
export class DocumentRequests {
  private readonly inFlight = new Map<string, AbortController>();
  private superseded = 0;

  /** Registers the request for `documentKey`, aborting the one before it. */
  begin(documentKey: string, controller: AbortController): void {
    const previous = this.inFlight.get(documentKey);
    if (previous !== undefined && previous !== controller) {
      this.superseded += 1;
      previous.abort("superseded");
    }
    this.inFlight.set(documentKey, controller);
  }

  end(documentKey: string, controller: AbortController): void {
    if (this.inFlight.get(documentKey) === controller) this.inFlight.delete(documentKey);
  }

  /** Requests cancelled by a newer one for the same document since the gateway started. */
  get supersededCount(): number {
    return this.superseded;
  }
}
