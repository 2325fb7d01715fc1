// One lane of a WebSocket connection (OpenAI's `stream_id`): its responses run one at a time,
// in the order they were asked for, with cancel, steer and resume. A connection has the default
// lane (no stream_id; a second create while busy is refused, as before lanes existed) and up to
// 32 named lanes, which queue creates FIFO; different lanes run at once.
import type {
  RequiredInputStub,
  ResponseConnectionEvent,
} from "../../protocol/responses-events.ts";
import type {
  ResponseCreateBody,
  ResponseInput,
  ResponseSteerEvent,
} from "../../protocol/responses-requests.ts";
import { continuableTurn } from "../turn/continue-response.ts";
import { GatewayClock } from "../gateway-clock.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { LiveResponse, type EventSink } from "../turn/live-response.ts";
import type { LiveResponseRegistry } from "../turn/live-response-registry.ts";
import { prepareTurn } from "../turn/prepare-turn.ts";
import type { ResponseRunResult } from "../turn/response-runner.ts";
import { resumeFromStore } from "../turn/resume-from-store.ts";
import { dropSlot, executeTurn, startSlot } from "../turn/turn-executor.ts";
import { WireError } from "../wire/wire-error.ts";
import {
  MAX_PENDING_STEERS,
  newSteerId,
  parseSteerInput,
  requiredInputOf,
  steerAccepted,
  steerPending,
  type steerFailed,
} from "./ws-steer.ts";

/** What a lane needs from its connection. */
export interface LaneHost {
  readonly context: GatewayContext;
  readonly apiKey: string | undefined;
  readonly registry: LiveResponseRegistry;
  readonly closed: boolean;
  /** An error event, tagged with the lane's stream_id. */
  sendError(error: unknown, streamId: string | undefined): void;
  /** A connection event (steering), tagged with the lane's stream_id. */
  sendConnectionEvent(event: ResponseConnectionEvent, streamId: string | undefined): void;
  sendSteerFailure(
    code: Parameters<typeof steerFailed>[0],
    responseId: string | undefined,
    input: unknown,
    streamId: string | undefined,
  ): void;
  /** The lane has nothing in flight: a connection past its lifetime may close now. */
  idle(): void;
}

interface QueuedCreate {
  body: ResponseCreateBody;
  receivedAt: number;
  clock: GatewayClock;
}

export class WsLane {
  private current: LiveResponse | undefined;
  private preparing = false;
  /** A cancel that arrived while the response was still being prepared (it has no id yet). */
  private cancelWhilePreparing = false;
  /** Aborts the preparation (a grammar being built) when the connection goes away. */
  private preparation: AbortController | undefined;
  private lastResponse:
    { id: string; body: ResponseCreateBody; requiredInput: RequiredInputStub[] } | undefined;
  /**
   * Steering input accepted while (or after) a response made tool calls: it waits for the
   * client's response.create that carries their outputs, and is prepended to its input.
   */
  private pendingSteer: { parentId: string; input: ResponseInput; count: number } | undefined;
  private readonly queue: QueuedCreate[] = [];

  constructor(
    readonly streamId: string | undefined,
    private readonly host: LaneHost,
    /** Where this lane's response events go (the connection, tagged with stream_id). */
    readonly sink: EventSink,
  ) {}

  get busy(): boolean {
    return this.current !== undefined || this.preparing;
  }

  /** Responses running or waiting in this lane. */
  get inFlight(): number {
    return (this.busy ? 1 : 0) + this.queue.length;
  }

  /** Whether a response id is this lane's (in flight, or the last one finished here). */
  owns(responseId: string): boolean {
    return this.current?.id === responseId || this.lastResponse?.id === responseId;
  }

  create(body: ResponseCreateBody, receivedAt: number, clock: GatewayClock): void {
    if (!this.busy) {
      void this.startTurn(body, receivedAt, clock);
      return;
    }
    if (this.streamId !== undefined) {
      this.queue.push({ body, receivedAt, clock });
      return;
    }
    const id = this.current?.id;
    this.host.sendError(
      new WireError(
        "invalid_request",
        `A response${id === undefined ? "" : ` (${id})`} is already in progress on this connection: wait for it to finish, ` +
          "or send response.cancel or response.steer. Use stream_id lanes (or another connection) to run responses in parallel.",
        { wireCode: "response_already_in_progress", status: 409 },
      ),
      this.streamId,
    );
  }

  cancel(responseId: string | undefined): void {
    if (this.preparing && responseId === undefined) {
      this.cancelWhilePreparing = true;
      return;
    }
    const live = this.current;
    if (live === undefined || (responseId !== undefined && responseId !== live.id)) {
      const which = responseId === undefined ? "No response is" : `Response '${responseId}' is not`;
      this.host.sendError(
        new WireError(
          "invalid_request",
          `${which} in progress on this connection, so there is nothing to cancel.`,
          { wireCode: "response_not_active", param: "response_id" },
        ),
        this.streamId,
      );
      return;
    }
    live.stop("cancelled");
  }

  /** OpenAI's shape names the response in previous_response_id; Spark's earlier one in
   * response_id (kept as an alias). Either may be left out to mean the response in flight. */
  steer(event: ResponseSteerEvent, receivedAt: number, clock: GatewayClock): void {
    const responseId = event.previous_response_id ?? event.response_id;
    const input = parseSteerInput(event.input);
    if (input === undefined) {
      this.host.sendSteerFailure("invalid_input", responseId, event.input, this.streamId);
      return;
    }
    const live = this.current;
    if (live !== undefined && (responseId === undefined || responseId === live.id)) {
      if (live.steerIds.length >= MAX_PENDING_STEERS) {
        this.host.sendSteerFailure("too_many_pending_steers", live.id, event.input, this.streamId);
        return;
      }
      live.steerInput = appendInput(live.steerInput, input);
      const id = newSteerId();
      live.steerIds.push(id);
      this.host.sendConnectionEvent(steerAccepted(id, live.id, 0), this.streamId);
      // A response that called a tool runs to its end instead: the calls need the client's
      // outputs before anything can follow them (the input then waits: response.steer.pending).
      if (!live.madeToolCalls) live.stop("steered");
      return;
    }
    const last = this.lastResponse;
    if (
      live === undefined &&
      !this.preparing &&
      last !== undefined &&
      (responseId === undefined || responseId === last.id)
    ) {
      this.steerFinished(last, input, event.input, receivedAt, clock);
      return;
    }
    this.host.sendSteerFailure("response_not_found", responseId, event.input, this.streamId);
  }

  /**
   * Steering a response that just finished continues its conversation, or, when it ended with
   * tool calls, waits with it for their outputs.
   */
  private steerFinished(
    last: NonNullable<WsLane["lastResponse"]>,
    input: ResponseInput,
    rawInput: unknown,
    receivedAt: number,
    clock: GatewayClock,
  ): void {
    if (last.requiredInput.length === 0) {
      this.host.sendConnectionEvent(steerAccepted(newSteerId(), last.id, 0), this.streamId);
      void this.startTurn(
        { ...last.body, input, previous_response_id: last.id },
        receivedAt,
        clock,
      );
      return;
    }
    if ((this.pendingSteer?.count ?? 0) >= MAX_PENDING_STEERS) {
      this.host.sendSteerFailure("too_many_pending_steers", last.id, rawInput, this.streamId);
      return;
    }
    const id = newSteerId();
    this.host.sendConnectionEvent(steerAccepted(id, last.id, 0), this.streamId);
    this.holdSteer(last.id, input, [id], last.requiredInput);
  }

  /** Takes over a response generating for a dropped connection (its missed events are sent). */
  adopt(live: LiveResponse): void {
    live.attach(this.sink);
    this.current = live;
    void live.finished.then((result) => this.afterResponse(live, result));
  }

  /** Resumes a response another replica generates, or generated until it died, from the store. */
  resumeFromStore(responseId: string, lastSequenceNumber: number): void {
    const { context, apiKey, registry } = this.host;
    this.preparing = true;
    const host = { context, apiKey, registry, sink: this.sink, closed: () => this.host.closed };
    void resumeFromStore(host, responseId, lastSequenceNumber)
      .then(
        (live) => {
          this.preparing = false;
          if (live !== undefined) this.adopt(live);
        },
        (error: unknown) => {
          this.preparing = false;
          this.host.sendError(error, this.streamId);
        },
      )
      .finally(() => {
        if (!this.busy) this.next();
      });
  }

  /** The connection is gone: the response in flight is handed to the registry to finish. */
  release(): void {
    this.queue.length = 0;
    this.preparation?.abort();
    const live = this.current;
    if (live !== undefined && !live.done) {
      live.detach(this.sink);
      this.host.registry.orphaned(live);
    }
  }

  private async startTurn(
    body: ResponseCreateBody,
    receivedAt: number,
    clock: GatewayClock,
  ): Promise<void> {
    const { context, apiKey, registry } = this.host;
    const held = this.pendingSteer;
    if (held !== undefined && body.previous_response_id === held.parentId) {
      // The continuation with the tool outputs: the held steering input goes first.
      this.pendingSteer = undefined;
      const input = body.input === undefined ? held.input : appendInput(held.input, body.input);
      body = { ...body, input };
    }
    this.preparing = true;
    this.cancelWhilePreparing = false;
    let live: LiveResponse | undefined;
    const slot = startSlot(context, apiKey);
    let slotTaken = false;
    let countedByDrain = false;
    const preparation = new AbortController();
    this.preparation = preparation;
    try {
      const turn = await prepareTurn(
        { body, apiKey, receivedAt, clock, signal: preparation.signal },
        {
          models: context.models,
          store: context.store,
          contextLimitTokens: context.config.contextLimitTokens,
        },
      );
      if (this.host.closed) return;
      slotTaken = true;
      countedByDrain = context.drain.runStarted();
      live = new LiveResponse(turn.responseId, apiKey, body, context.config.replayBufferBytes);
      const started = live;
      // With a shared store its events are logged there first, so another replica can resume it.
      if (context.liveLog !== undefined) {
        started.logTo(
          context.liveLog.open({
            id: turn.responseId,
            owner: turn.tenant,
            turn: continuableTurn(turn),
            deliver: (event, json) => started.deliver(event, json),
            onSuperseded: () => started.supersede(),
          }),
        );
      }
      registry.add(started);
      started.attach(this.sink);
      this.current = started;
      this.preparing = false;
      if (this.cancelWhilePreparing) started.stop("cancelled");
      void started.finished.then((result) => this.afterResponse(started, result));
      const result = await executeTurn(context, turn, {
        signal: started.signal,
        emit: (event, json) => started.emit(event, json),
        clock,
        transport: "ws",
        mayStore: () => !started.superseded,
        slot,
      });
      started.finish(result);
    } catch (error) {
      // Only preparation and the concurrency check throw: no response events were sent.
      if (live !== undefined) {
        if (countedByDrain) context.drain.runRefused();
        registry.remove(live);
        live.finish(undefined);
      }
      // A preparation abandoned because the client left has no one to tell.
      if (!this.host.closed) this.host.sendError(error, this.streamId);
    } finally {
      if (this.preparation === preparation) this.preparation = undefined;
      if (!slotTaken) dropSlot(slot);
      this.preparing = false;
      if (!this.busy) this.next();
    }
  }

  private afterResponse(live: LiveResponse, result: ResponseRunResult | undefined): void {
    if (this.current !== live) return;
    this.current = undefined;
    const requiredInput = result === undefined ? [] : requiredInputOf(result.response);
    if (result !== undefined) this.lastResponse = { id: live.id, body: live.body, requiredInput };
    if (this.host.closed) return;
    const steerInput = live.steerInput;
    if (steerInput !== undefined && result !== undefined && requiredInput.length > 0) {
      this.holdSteer(live.id, steerInput, live.steerIds, requiredInput);
      this.next();
      return;
    }
    if (steerInput !== undefined && result !== undefined) {
      // The steered response kept its partial output; the new input continues the same chain
      // before anything queued behind it.
      void this.startTurn(
        { ...live.body, input: steerInput, previous_response_id: live.id },
        performance.now(),
        new GatewayClock(),
      );
      return;
    }
    this.next();
  }

  /** Keeps steering input for the continuation carrying these outputs, and says so per steer. */
  private holdSteer(
    parentId: string,
    input: ResponseInput,
    steerIds: readonly string[],
    requiredInput: RequiredInputStub[],
  ): void {
    const held = this.pendingSteer?.parentId === parentId ? this.pendingSteer : undefined;
    this.pendingSteer = {
      parentId,
      input: appendInput(held?.input, input),
      count: (held?.count ?? 0) + steerIds.length,
    };
    for (const id of steerIds) {
      this.host.sendConnectionEvent(steerPending(id, parentId, requiredInput), this.streamId);
    }
  }

  /** Starts the next queued create (FIFO), or tells the connection the lane is idle. */
  private next(): void {
    const queued = this.queue.shift();
    if (queued !== undefined && !this.host.closed) {
      void this.startTurn(queued.body, queued.receivedAt, queued.clock);
      return;
    }
    this.host.idle();
  }
}

function asItems(input: ResponseInput): Exclude<ResponseInput, string> {
  return typeof input === "string" ? [{ role: "user", content: input }] : input;
}

function appendInput(earlier: ResponseInput | undefined, input: ResponseInput): ResponseInput {
  return earlier === undefined ? input : [...asItems(earlier), ...asItems(input)];
}
