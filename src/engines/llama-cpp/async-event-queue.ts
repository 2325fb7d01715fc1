// A push-to-pull bridge: callbacks push events, one consumer iterates them in order.
export class AsyncEventQueue<Item> implements AsyncIterable<Item> {
  private readonly items: Item[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  push(item: Item): void {
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}
