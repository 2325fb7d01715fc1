// Which failures the user hears about: each cause (no server, key refused) once per server URL
// until a request there succeeds again, so an outage on one URL does not use up the notice for
// another, and a failing request repeated on every keystroke does not repeat its toast.

export type FailureCause = "server_unreachable" | "unauthorized";

export class FailureNotices {
  private readonly shown = new Set<string>();

  /** True the first time this cause is seen for this URL since it last worked. */
  shouldNotify(cause: FailureCause, url: string): boolean {
    const key = `${cause} ${url}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }

  /** A request to this URL succeeded: its next failure is news again. */
  recovered(url: string): void {
    for (const key of this.shown) if (key.endsWith(` ${url}`)) this.shown.delete(key);
  }
}
