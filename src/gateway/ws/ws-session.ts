// One WebSocket connection in Responses WebSocket mode: many turns, plus cancel, steer and
// resume. Responses run in lanes (OpenAI's `stream_id`, see ws-lane.ts): one at a time per lane,
// lanes at once. Bad frames get an error event; the connection and the server keep going. Its
// responses outlive it for the resume grace period.
import type { RawData, WebSocket } from "ws";
import type { ResponseConnectionEvent } from "../../protocol/responses-events.ts";
import type { ResponsesClientEvent } from "../../protocol/responses-requests.ts";
import { DeltaCoalescer } from "../wire/delta-coalescer.ts";
import { isFinalResponseEvent, type TickCorker } from "../wire/tick-corker.ts";
import { eventJson, withStreamId, type TransportEvent } from "../wire/event-json.ts";
import { errorEvent } from "../wire/error-event.ts";
import { GatewayClock } from "../gateway-clock.ts";
import { drainingError } from "../drain-state.ts";
import type { GatewayContext } from "../gateway-context.ts";
import type { EventSink } from "../turn/live-response.ts";
import type { LiveResponseRegistry } from "../turn/live-response-registry.ts";
import { notResumableError, resumeGapError } from "../turn/resume-from-store.ts";
import { describeWireError, WireError } from "../wire/wire-error.ts";
import { parseClientFrame } from "./ws-frame-parser.ts";
import { WsCloseFence } from "./ws-close-fence.ts";
import { WsKeepalive } from "./ws-keepalive.ts";
import { WsLane, type LaneHost } from "./ws-lane.ts";
import { steerFailed } from "./ws-steer.ts";
import { tenantOf } from "../access/tenant.ts";

/** OpenAI's limits: responses running or queued per connection, and named lanes per connection. */
export const MAX_RESPONSES_IN_FLIGHT = 16;
export const MAX_NAMED_STREAMS = 32;
const STREAM_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** How long a dropped slow client has to read its backlog and the close reason. */
const SLOW_CLIENT_CLOSE_GRACE_MS = 5000;

export class WsSession implements LaneHost {
  /** Lanes by stream_id; "" is the default lane (no stream_id). */
  private readonly lanes = new Map<string, WsLane>();
  /** sequence_number of the connection's own events (errors, steering acknowledgements). */
  private connectionSequence = 0;
  closed = false;
  private readonly coalescer: DeltaCoalescer;
  private readonly keepalive: WsKeepalive;
  /** A drain's close of this connection, held until the client's frames on their way are in. */
  private readonly closeFence: WsCloseFence;
  /** The caller's tenant, for the log (a hash of its key). */
  private readonly tenant: string;

  constructor(
    private readonly socket: WebSocket,
    readonly apiKey: string | undefined,
    readonly context: GatewayContext,
    readonly registry: LiveResponseRegistry,
    /** Holds each tick's events so they leave together (see tick-corker.ts). */
    corker: TickCorker = { hold: () => {}, release: () => {} },
  ) {
    const { config } = context;
    this.tenant = tenantOf(apiKey);
    this.coalescer = new DeltaCoalescer(
      {
        bufferedBytes: () => socket.bufferedAmount,
        write: (event: TransportEvent, json: string | undefined, streamId: string | undefined) => {
          corker.hold();
          if (json === undefined) socket.send(eventJson(event, streamId));
          else socket.send(streamId === undefined ? json : withStreamId(json, streamId));
          if (isFinalResponseEvent(event.type)) corker.release();
        },
        drop: (reason) => this.closeWith(1013, reason, "slow_client", SLOW_CLIENT_CLOSE_GRACE_MS),
      },
      {
        softBytes: config.sendBufferSoftBytes,
        hardBytes: config.sendBufferHardBytes,
        onMerged: () => context.metrics.countMergedDelta(),
      },
    );
    this.keepalive = new WsKeepalive(socket, {
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      lifetimeMs: config.connectionLifetimeSeconds * 1000,
      idleMs: config.idleTimeoutSeconds * 1000,
      isBusy: () => [...this.lanes.values()].some((lane) => lane.busy),
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
          undefined,
        ),
    });
    this.closeFence = new WsCloseFence(
      socket,
      () => this.busy,
      () => this.shutdown(),
    );
    context.metrics.connectionOpened();
    context.log.webSocket("open", apiKey === undefined ? "" : "(authenticated)", this.tenant);
    socket.on("message", (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    socket.on("close", () => this.onClose());
    // A socket error is followed by 'close'; without a listener it would crash the process.
    socket.on("error", () => {});
  }

  /** A response of its own is generating or queued (a drain waits for it before closing). */
  get busy(): boolean {
    return [...this.lanes.values()].some((lane) => lane.busy);
  }

  /** Server shutdown: going away (1001), which clients treat as worth a reconnect. */
  shutdown(): void {
    this.closeFence.stop();
    this.closeWith(1001, "server shutting down", "shutdown", 1000);
  }

  /** A drain: closes 1001 once idle with nothing of the client's on its way (ws-close-fence.ts);
   * a request that arrives first is served, and the drain asks again once it is idle. */
  closeWhenIdle(): void {
    if (!this.closed && !this.busy) this.closeFence.closeWhenQuiet();
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const receivedAt = performance.now();
    let event: ResponsesClientEvent;
    try {
      event = parseClientFrame(data, isBinary, this.context.config.maxFrameBytes);
    } catch (error) {
      this.sendError(error, undefined);
      return;
    }
    const streamId = (event as { stream_id?: unknown }).stream_id;
    if (
      streamId !== undefined &&
      (typeof streamId !== "string" || !STREAM_ID_PATTERN.test(streamId))
    ) {
      this.sendError(
        new WireError(
          "invalid_request",
          "stream_id must be 1 to 64 letters, digits, '_', '-', '.' or ':'.",
          { wireCode: "invalid_stream_id", param: "stream_id" },
        ),
        undefined,
      );
      return;
    }
    const clock = new GatewayClock();
    clock.addSince(receivedAt);
    switch (event.type) {
      case "response.create": {
        // Past our close frame nothing can be answered: the client sees the close before any
        // event of this request, which tells it to send the request again (Codex does).
        if (this.closed) {
          if (this.context.drain.draining) {
            this.context.metrics.countError("server_shutting_down");
            this.context.log.webSocketError("response.create", drainingError(), this.tenant);
          }
          return;
        }
        // A drain serves what reaches an open connection within its grace period (no load
        // balancer can retry a WebSocket frame elsewhere); past it, a retryable refusal.
        if (this.context.drain.graceOver) {
          this.sendError(drainingError(), typeof streamId === "string" ? streamId : undefined);
          return;
        }
        // A key a reload (SIGHUP) removed starts nothing more; what it started goes on.
        if (!keyStillValid(this.context, this.apiKey)) {
          this.sendError(
            new WireError("authentication_failed", "This API key is no longer accepted here.", {
              wireCode: "invalid_api_key",
            }),
            typeof streamId === "string" ? streamId : undefined,
          );
          return;
        }
        const lane = this.laneForCreate(streamId);
        if (lane === undefined) return;
        const { type: _type, stream_id: _streamId, ...body } = event;
        lane.create(body, receivedAt, clock);
        return;
      }
      case "response.cancel":
        return this.laneFor(streamId, event.response_id).cancel(event.response_id);
      case "response.steer":
        return this.laneFor(streamId, event.previous_response_id ?? event.response_id).steer(
          event,
          receivedAt,
          clock,
        );
      case "response.resume":
        return this.resume(streamId, event.response_id, event.last_sequence_number ?? -1);
      default:
        event satisfies never;
    }
  }

  /** The lane a create runs in, opened if new; undefined (and an error sent) over a limit. */
  private laneForCreate(streamId: string | undefined): WsLane | undefined {
    const inFlight = [...this.lanes.values()].reduce((sum, lane) => sum + lane.inFlight, 0);
    const existing = this.lanes.get(streamId ?? "");
    const namedLanes = [...this.lanes.keys()].filter((key) => key !== "").length;
    let refusal: string | undefined;
    if (inFlight >= MAX_RESPONSES_IN_FLIGHT) {
      refusal = `At most ${MAX_RESPONSES_IN_FLIGHT} responses can be in flight on one connection; wait for one to finish.`;
    } else if (
      existing === undefined &&
      streamId !== undefined &&
      namedLanes >= MAX_NAMED_STREAMS
    ) {
      refusal = `At most ${MAX_NAMED_STREAMS} stream_id lanes can be opened on one connection; reuse one, or open another connection.`;
    }
    if (refusal !== undefined) {
      this.sendError(
        new WireError("invalid_request", refusal, {
          wireCode: "websocket_stream_limit_reached",
          param: "stream_id",
          status: 429,
        }),
        streamId,
      );
      return undefined;
    }
    return existing ?? this.openLane(streamId);
  }

  /** The lane named by stream_id; else the one a response id belongs to; else the default. A
   * lane never opened gets a throwaway one, so cancel or steer there fail as "not found" without
   * opening lanes past the limit. */
  private laneFor(streamId: string | undefined, responseId: string | undefined): WsLane {
    if (streamId !== undefined) return this.lanes.get(streamId) ?? this.newLane(streamId);
    if (responseId !== undefined) {
      for (const lane of this.lanes.values()) if (lane.owns(responseId)) return lane;
    }
    return this.lanes.get("") ?? this.openLane(undefined);
  }

  private openLane(streamId: string | undefined): WsLane {
    const lane = this.newLane(streamId);
    this.lanes.set(streamId ?? "", lane);
    return lane;
  }

  private newLane(streamId: string | undefined): WsLane {
    const sink: EventSink = (event, json) => this.coalescer.push(event, json, streamId);
    return new WsLane(streamId, this, sink);
  }

  private resume(
    streamId: string | undefined,
    responseId: string,
    lastSequenceNumber: number,
  ): void {
    const lane = this.laneForCreate(streamId);
    if (lane === undefined) return;
    if (lane.busy) {
      this.sendError(
        new WireError(
          "invalid_request",
          "A response is already in progress in this lane: resume on another stream_id, or wait.",
          { wireCode: "response_already_in_progress", status: 409 },
        ),
        streamId,
      );
      return;
    }
    const live = this.registry.get(responseId, this.apiKey);
    if (live === undefined) {
      // Another replica's response (or one whose replica died): its events are in the store.
      if (this.context.store.shared) lane.resumeFromStore(responseId, lastSequenceNumber);
      else this.sendError(notResumableError(responseId), streamId);
      return;
    }
    const missed = live.replay.since(lastSequenceNumber);
    if (missed === undefined) {
      this.sendError(resumeGapError(responseId, lastSequenceNumber), streamId);
      return;
    }
    for (const event of missed) lane.sink(event);
    if (live.done) return;
    lane.adopt(live);
  }

  sendError(error: unknown, streamId: string | undefined): void {
    this.context.metrics.countError(describeWireError(error).code);
    this.context.log.webSocketError("event", error, this.tenant);
    const event = errorEvent(error, this.connectionSequence++);
    this.coalescer.push(event, undefined, streamId);
  }

  sendConnectionEvent(event: ResponseConnectionEvent, streamId: string | undefined): void {
    const sequenced = { ...event, sequence_number: this.connectionSequence++ };
    this.coalescer.push(sequenced, undefined, streamId);
  }

  sendSteerFailure(
    code: Parameters<typeof steerFailed>[0],
    responseId: string | undefined,
    input: unknown,
    streamId: string | undefined,
  ): void {
    this.context.metrics.countError(code);
    this.context.log.webSocketError(
      "response.steer",
      new WireError("invalid_request", code),
      this.tenant,
    );
    this.sendConnectionEvent(steerFailed(code, responseId, input, 0), streamId);
  }

  idle(): void {
    this.closeFence.markActivity();
    this.keepalive.idle();
  }

  private closeWith(
    code: number,
    reason: string,
    metricReason: string,
    terminateAfterMs: number,
  ): void {
    if (this.closed) return;
    this.context.metrics.countServerClose(metricReason);
    // The responses are let go now, not when the peer finally answers the close: a dropped slow
    // client must not hold the engine for longer than the resume grace period.
    this.release();
    // A close reason may be at most 123 bytes.
    this.socket.close(code, Buffer.from(reason).subarray(0, 123).toString());
    // A client that reads nothing never answers the close: cut it. Until then it can still read
    // what is buffered, and the close frame with the reason behind it.
    setTimeout(() => this.socket.terminate(), terminateAfterMs).unref();
  }

  private onClose(): void {
    this.closeFence.stop();
    this.release();
    this.keepalive.stop();
    this.context.metrics.connectionClosed();
    this.context.log.webSocket("close", "", this.tenant);
  }

  /** Stops sending, and hands the responses in flight to the registry to finish or be resumed. */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.coalescer.stop();
    for (const lane of this.lanes.values()) lane.release();
  }
}

/** False once the configured keys no longer include the one the connection authenticated with. */
function keyStillValid(context: GatewayContext, apiKey: string | undefined): boolean {
  const keys = context.config.apiKeys;
  if (apiKey === undefined) return keys.length === 0;
  return keys.includes(apiKey);
}
