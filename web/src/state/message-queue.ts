// Messages queued in this page for after the running turn: shown (and removable) until they are
// sent, one `turn/start` each time the session goes idle, as the terminal UI does. Held after a
// Stop, so stopping a turn does not start the next one; the user sends it on when ready.
import type { AgentProtocolClient } from "../../../src/protocol/agent/index.ts";
import type { MessageParts } from "./attachments.ts";

export interface QueuedMessage {
  id: string;
  /** The text `turn/start` sends (attachments composed in). */
  message: string;
  parts: MessageParts;
}

export interface SessionQueue {
  messages: readonly QueuedMessage[];
  /** Set by an interrupt: nothing is sent until the user resumes. */
  held: boolean;
}

export const emptyQueue: SessionQueue = { messages: [], held: false };

export function enqueue(queue: SessionQueue, message: QueuedMessage): SessionQueue {
  return { ...queue, messages: [...queue.messages, message] };
}

export function removeQueued(queue: SessionQueue, id: string): SessionQueue {
  const messages = queue.messages.filter((message) => message.id !== id);
  // An empty queue has nothing to hold back: the next one queued goes out when the turn ends.
  return { messages, held: messages.length === 0 ? false : queue.held };
}

/** The message to send now that the session is idle, and the queue without it. */
export function takeNext(
  queue: SessionQueue,
): { message: QueuedMessage; rest: SessionQueue } | undefined {
  const [first, ...rest] = queue.messages;
  if (first === undefined || queue.held) return undefined;
  return { message: first, rest: { ...queue, messages: rest } };
}

/** Puts a message back at the front (its `turn/start` failed). */
export function putBack(queue: SessionQueue, message: QueuedMessage): SessionQueue {
  return { ...queue, messages: [message, ...queue.messages] };
}

export function holdQueue(queue: SessionQueue): SessionQueue {
  return queue.messages.length === 0 ? queue : { ...queue, held: true };
}

export function resumeQueue(queue: SessionQueue): SessionQueue {
  return { ...queue, held: false };
}

export interface QueuedTurnsOptions {
  client: () => AgentProtocolClient | undefined;
  /** A session's queue changed (the store shows the open session's). */
  onChange: (sessionId: string, queue: SessionQueue) => void;
  onError: (error: unknown) => void;
  now: () => number;
}

/** Every session's queue in this page, and the one `turn/start` each sends when it goes idle. */
export class QueuedTurns {
  private readonly queues = new Map<string, SessionQueue>();
  private readonly sending = new Set<string>();

  constructor(private readonly options: QueuedTurnsOptions) {}

  of(sessionId: string): SessionQueue {
    return this.queues.get(sessionId) ?? emptyQueue;
  }

  add(sessionId: string, message: string, parts: MessageParts): void {
    const id = `queued-${this.options.now()}-${this.of(sessionId).messages.length}`;
    this.set(sessionId, enqueue(this.of(sessionId), { id, message, parts }));
  }

  remove(sessionId: string, id: string): void {
    this.set(sessionId, removeQueued(this.of(sessionId), id));
  }

  hold(sessionId: string): void {
    this.set(sessionId, holdQueue(this.of(sessionId)));
  }

  resume(sessionId: string): void {
    this.set(sessionId, resumeQueue(this.of(sessionId)));
  }

  /** The session is idle: starts the next queued message's turn, if any and not held. */
  async sendNext(sessionId: string): Promise<void> {
    const next = takeNext(this.of(sessionId));
    const client = this.options.client();
    if (next === undefined || client === undefined || this.sending.has(sessionId)) return;
    this.sending.add(sessionId);
    this.set(sessionId, next.rest);
    try {
      await client.request("turn/start", { sessionId, text: next.message.message });
    } catch (error) {
      // Still there to send (another client may have started a turn first): the next idle does.
      this.set(sessionId, putBack(this.of(sessionId), next.message));
      this.options.onError(error);
    } finally {
      this.sending.delete(sessionId);
    }
  }

  private set(sessionId: string, queue: SessionQueue): void {
    if (queue === this.of(sessionId)) return;
    this.queues.set(sessionId, queue);
    this.options.onChange(sessionId, queue);
  }
}
