// One WebSocket connection in Responses WebSocket mode: many turns, one response in flight at a
// time, plus Spark's cancel, steer and resume. Bad frames get an error event; the connection and
// the server keep going. Its response outlives it for the resume grace period.
import type { RawData, WebSocket } from "ws";
import type { ResponseServerEvent } from "../protocol/responses-events.ts";
import type {
  ResponseCreateBody,
  ResponseInput,
  ResponsesClientEvent,
  ResponseSteerEvent,
} from "../protocol/responses-requests.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import { errorEvent } from "./error-event.ts";
import { GatewayClock } from "./gateway-clock.ts";
import type { GatewayContext } from "./gateway-context.ts";
import { LiveResponse, type EventSink } from "./live-response.ts";
import type { LiveResponseRegistry } from "./live-response-registry.ts";
import { prepareTurn } from "./prepare-turn.ts";
import type { ResponseRunResult } from "./response-runner.ts";
import { executeTurn } from "./turn-executor.ts";
import { describeWireError, WireError } from "./wire-error.ts";
import { parseClientFrame } from "./ws-frame-parser.ts";
import { WsKeepalive } from "./ws-keepalive.ts";
import {
  MAX_PENDING_STEERS,
  newSteerId,
  parseSteerInput,
  steerAccepted,
  steerFailed,
} from "./ws-steer.ts";

/** How long a dropped slow client has to read its backlog and the close reason. */
const SLOW_CLIENT_CLOSE_GRACE_MS = 5000;

export class WsSession {
  private current: LiveResponse | undefined;
  private preparing = false;
  /** A cancel that arrived while the response was still being prepared (it has no id yet). */
  private cancelWhilePreparing = false;
  private lastResponse: { id: string; body: ResponseCreateBody } | undefined;
  /** sequence_number of the connection's own events (errors, steering acknowledgements). */
  private connectionSequence = 0;
  private closed = false;
  private readonly coalescer: DeltaCoalescer;
  private readonly sink: EventSink;
  private readonly keepalive: WsKeepalive;

  constructor(
    private readonly socket: WebSocket,
    private readonly apiKey: string | undefined,
    private readonly context: GatewayContext,
    private readonly registry: LiveResponseRegistry,
    /** Called before each write so one tick's events leave together (see tick-corker.ts). */
    beforeWrite: () => void = () => {},
  ) {
    const { config } = context;
    this.coalescer = new DeltaCoalescer(
      {
        bufferedBytes: () => socket.bufferedAmount,
        write: (event: ResponseServerEvent, json: string | undefined) => {
          beforeWrite();
          socket.send(json ?? JSON.stringify(event));
        },
        drop: (reason) => this.closeWith(1013, reason, "slow_client", SLOW_CLIENT_CLOSE_GRACE_MS),
      },
      {
        softBytes: config.sendBufferSoftBytes,
        hardBytes: config.sendBufferHardBytes,
        onMerged: () => context.metrics.countMergedDelta(),
      },
    );
    this.sink = (event) => this.coalescer.push(event);
    this.keepalive = new WsKeepalive(socket, {
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      lifetimeMs: config.connectionLifetimeSeconds * 1000,
      isBusy: () => this.current !== undefined || this.preparing,
      onClose: (reason) => context.metrics.countServerClose(reason),
      // OpenAI's code for the 60-minute limit: clients such as Codex reconnect on it and send
      // the full conversation again.
      onLifetimeReached: () =>
        this.sendError(
          new WireError(
            "invalid_request",
            `This connection reached its ${config.connectionLifetimeSeconds}-second limit (connection_lifetime_seconds) and is closing; open a new connection to continue.`,
            { wireCode: "websocket_connection_limit_reached", status: 400 },
          ),
        ),
    });
    context.metrics.connectionOpened();
    context.log.webSocket("open", apiKey === undefined ? "" : "(authenticated)");
    socket.on("message", (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    socket.on("close", () => this.onClose());
    // A socket error is followed by 'close'; without a listener it would crash the process.
    socket.on("error", () => {});
  }

  /** Server shutdown: going away (1001), which clients treat as worth a reconnect. */
  shutdown(): void {
    this.closeWith(1001, "server shutting down", "shutdown", 1000);
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const receivedAt = performance.now();
    let event: ResponsesClientEvent;
    try {
      event = parseClientFrame(data, isBinary, this.context.config.maxFrameBytes);
    } catch (error) {
      this.sendError(error);
      return;
    }
    const clock = new GatewayClock();
    clock.addSince(receivedAt);
    switch (event.type) {
      case "response.create": {
        if (this.refuseWhileBusy()) return;
        const { type: _type, ...body } = event;
        void this.startTurn(body, receivedAt, clock);
        return;
      }
      case "response.cancel":
        return this.cancel(event.response_id);
      case "response.steer":
        return this.steer(event, receivedAt, clock);
      case "response.resume":
        return this.resume(event.response_id, event.last_sequence_number ?? -1);
      default:
        event satisfies never;
    }
  }

  private async startTurn(
    body: ResponseCreateBody,
    receivedAt: number,
    clock: GatewayClock,
  ): Promise<void> {
    this.preparing = true;
    this.cancelWhilePreparing = false;
    let live: LiveResponse | undefined;
    try {
      const startedAt = performance.now();
      const turn = await prepareTurn(
        { body, apiKey: this.apiKey, receivedAt },
        {
          models: this.context.models,
          store: this.context.store,
          contextLimitTokens: this.context.config.contextLimitTokens,
        },
      );
      clock.addSince(startedAt);
      if (this.closed) return;
      live = new LiveResponse(
        turn.responseId,
        this.apiKey,
        body,
        this.context.config.replayBufferBytes,
      );
      const started = live;
      this.registry.add(started);
      started.attach(this.sink);
      this.current = started;
      this.preparing = false;
      if (this.cancelWhilePreparing) started.stop("cancelled");
      void started.finished.then((result) => this.afterResponse(started, result));
      const result = await executeTurn(this.context, turn, {
        signal: started.signal,
        emit: (event) => started.emit(event),
        clock,
        transport: "ws",
      });
      started.finish(result);
    } catch (error) {
      // Only preparation and the concurrency check throw: no response events were sent.
      if (live !== undefined) {
        this.registry.remove(live);
        live.finish(undefined);
      }
      this.sendError(error);
    } finally {
      this.preparing = false;
      // A lifetime that ran out while this turn was being prepared or refused closes now.
      this.keepalive.idle();
    }
  }

  private afterResponse(live: LiveResponse, result: ResponseRunResult | undefined): void {
    if (this.current !== live) return;
    this.current = undefined;
    if (result !== undefined) this.lastResponse = { id: live.id, body: live.body };
    if (this.closed) return;
    const steerInput = live.steerInput;
    if (steerInput !== undefined && result !== undefined) {
      // The steered response kept its partial output; the new input continues the same chain.
      void this.startTurn(
        { ...live.body, input: steerInput, previous_response_id: live.id },
        performance.now(),
        new GatewayClock(),
      );
      return;
    }
    this.keepalive.idle();
  }

  private cancel(responseId: string | undefined): void {
    if (this.preparing && responseId === undefined) {
      this.cancelWhilePreparing = true;
      return;
    }
    const live = this.current;
    if (live === undefined || (responseId !== undefined && responseId !== live.id)) {
      this.sendError(notActive(responseId, "cancel"));
      return;
    }
    live.stop("cancelled");
  }

  /** OpenAI's shape names the response in previous_response_id; Spark's earlier one in
   * response_id (kept as an alias). Either may be left out to mean the response in flight. */
  private steer(event: ResponseSteerEvent, receivedAt: number, clock: GatewayClock): void {
    const responseId = event.previous_response_id ?? event.response_id;
    const input = parseSteerInput(event.input);
    if (input === undefined) {
      this.sendSteerFailure("invalid_input", responseId, event.input);
      return;
    }
    const live = this.current;
    if (live !== undefined && (responseId === undefined || responseId === live.id)) {
      if (live.steerCount >= MAX_PENDING_STEERS) {
        this.sendSteerFailure("too_many_pending_steers", live.id, event.input);
        return;
      }
      live.steerCount += 1;
      live.steerInput =
        live.steerInput === undefined ? input : [...asItems(live.steerInput), ...asItems(input)];
      this.coalescer.push(steerAccepted(newSteerId(), live.id, this.connectionSequence++));
      live.stop("steered");
      return;
    }
    // The response may have just finished: steering then simply continues its conversation.
    const last = this.lastResponse;
    if (
      live === undefined &&
      !this.preparing &&
      last !== undefined &&
      (responseId === undefined || responseId === last.id)
    ) {
      this.coalescer.push(steerAccepted(newSteerId(), last.id, this.connectionSequence++));
      void this.startTurn(
        { ...last.body, input, previous_response_id: last.id },
        receivedAt,
        clock,
      );
      return;
    }
    this.sendSteerFailure("response_not_found", responseId, event.input);
  }

  private sendSteerFailure(
    code: Parameters<typeof steerFailed>[0],
    responseId: string | undefined,
    input: unknown,
  ): void {
    this.context.metrics.countError(code);
    this.context.log.webSocketError("response.steer", new WireError("invalid_request", code));
    this.coalescer.push(steerFailed(code, responseId, input, this.connectionSequence++));
  }

  private resume(responseId: string, lastSequenceNumber: number): void {
    if (this.refuseWhileBusy()) return;
    const live = this.registry.get(responseId, this.apiKey);
    if (live === undefined) {
      this.sendError(
        new WireError(
          "invalid_request",
          `Response '${responseId}' cannot be resumed: it is unknown here, or finished more than resume_grace_seconds ago. ` +
            `Its final state is available with GET /v1/responses/${responseId} while it is stored.`,
          { wireCode: "response_not_resumable", param: "response_id", status: 404 },
        ),
      );
      return;
    }
    const missed = live.replay.since(lastSequenceNumber);
    if (missed === undefined) {
      this.sendError(
        new WireError(
          "invalid_request",
          `Events after sequence_number ${lastSequenceNumber} of '${responseId}' are no longer held (replay_buffer_bytes); fetch the final response instead.`,
          { wireCode: "resume_gap", param: "last_sequence_number" },
        ),
      );
      return;
    }
    for (const event of missed) this.coalescer.push(event);
    if (live.done) return;
    live.attach(this.sink);
    this.current = live;
    void live.finished.then((result) => this.afterResponse(live, result));
  }

  private refuseWhileBusy(): boolean {
    if (this.current === undefined && !this.preparing) return false;
    const id = this.current?.id;
    this.sendError(
      new WireError(
        "invalid_request",
        `A response${id === undefined ? "" : ` (${id})`} is already in progress on this connection: wait for it to finish, ` +
          "or send response.cancel or response.steer. Open another connection to run responses in parallel.",
        { wireCode: "response_already_in_progress", status: 409 },
      ),
    );
    return true;
  }

  private sendError(error: unknown): void {
    this.context.metrics.countError(describeWireError(error).code);
    this.context.log.webSocketError("event", error);
    this.coalescer.push(errorEvent(error, this.connectionSequence++));
  }

  private closeWith(
    code: number,
    reason: string,
    metricReason: string,
    terminateAfterMs: number,
  ): void {
    if (this.closed) return;
    this.context.metrics.countServerClose(metricReason);
    // The response is let go now, not when the peer finally answers the close: a dropped slow
    // client must not hold the engine for longer than the resume grace period.
    this.release();
    // A close reason may be at most 123 bytes.
    this.socket.close(code, Buffer.from(reason).subarray(0, 123).toString());
    // A client that reads nothing never answers the close: cut it. Until then it can still read
    // what is buffered, and the close frame with the reason behind it.
    setTimeout(() => this.socket.terminate(), terminateAfterMs).unref();
  }

  private onClose(): void {
    this.release();
    this.keepalive.stop();
    this.context.metrics.connectionClosed();
    this.context.log.webSocket("close", "");
  }

  /** Stops sending, and hands the response in flight to the registry to finish or be resumed. */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.coalescer.stop();
    const live = this.current;
    if (live !== undefined && !live.done) {
      live.detach(this.sink);
      this.registry.orphaned(live);
    }
  }
}

function notActive(responseId: string | undefined, action: string): WireError {
  const which = responseId === undefined ? "No response is" : `Response '${responseId}' is not`;
  return new WireError(
    "invalid_request",
    `${which} in progress on this connection, so there is nothing to ${action}.`,
    {
      wireCode: "response_not_active",
      param: "response_id",
    },
  );
}

function asItems(input: ResponseInput): Exclude<ResponseInput, string> {
  return typeof input === "string" ? [{ role: "user", content: input }] : input;
}
