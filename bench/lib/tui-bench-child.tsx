// The terminal UI under a fast stream, in a process of its own so its CPU time is its own: the
// in-process app server, a synthetic engine at a set rate, and the real <App> rendering into a
// TTY-like stream that timestamps every frame. Runs one turn without the UI (the baseline) and
// one with it, and reports both over IPC.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { render } from "ink";
import { InProcessModelClient } from "../../src/agent/model-client/in-process-model-client.ts";
import { createAppServer } from "../../src/app-server/app-server.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { AgentProtocolClient } from "../../src/protocol/agent/agent-protocol-client.ts";
import { createInMemoryTransportPair } from "../../src/protocol/agent/message-transport.ts";
import { App } from "../../src/tui/app.tsx";

export interface TuiBenchRun {
  withUi: boolean;
  /** Text-delta events received (the app server coalesces the tokens of one tick into one). */
  deltas: number;
  /** Tokens the engine produced in the turn (its usage). */
  outputTokens: number;
  /** turn/start sent → first delta received, ms. */
  firstDeltaMs: number;
  /** First → last delta received, ms. */
  streamMs: number;
  /** Last delta received → the first frame written after it, ms (with the UI). */
  lastTokenLagMs: number | null;
  /** Frames written to the terminal between the first and last delta (one frame may be several writes). */
  frames: number;
  /** Bytes written to the terminal in all. */
  bytesWritten: number;
  /** CPU time of this whole process (app server, engine, UI) from turn/start to 150 ms after the end, ms. */
  cpuMs: number;
  /** The wall time cpuMs was measured over, ms. */
  wallMs: number;
}

export interface TuiBenchRequest {
  tokensPerSecond: number;
  tokens: number;
}

class TerminalRecorder extends Writable {
  readonly isTTY = true;
  readonly columns = 120;
  readonly rows = 40;
  readonly writes: { at: number; bytes: number }[] = [];
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.writes.push({ at: performance.now(), bytes: chunk.length });
    callback();
  }
}

function fakeStdin(): NodeJS.ReadStream {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream & { setRawMode(): void };
  Object.assign(stdin, {
    isTTY: true,
    setRawMode: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
  });
  return stdin;
}

/** Ink writes a frame with static output as up to three writes in one go; they count once. */
function countFrames(writes: { at: number }[]): number {
  let frames = 0;
  let previous = Number.NEGATIVE_INFINITY;
  for (const write of writes) {
    if (write.at - previous > 2) frames += 1;
    previous = write.at;
  }
  return frames;
}

async function runTurn(request: TuiBenchRequest, withUi: boolean): Promise<TuiBenchRun> {
  const root = mkdtempSync(path.join(os.tmpdir(), "spark-tui-bench-"));
  const engine = createSyntheticEngine({
    tokensPerSecond: request.tokensPerSecond,
    tokens: request.tokens,
    contextLength: 32_768,
  });
  const appServer = createAppServer({
    workspaceRoots: [root],
    sessionsDirectory: path.join(root, "sessions"),
    instructions: "You are a benchmark.",
    models: {
      defaultModel: "synthetic",
      list: async () => [{ id: "synthetic", engine: "synthetic" }],
      open: async () => ({
        name: "synthetic",
        client: new InProcessModelClient(engine),
        contextWindowTokens: 32_768,
        close: async () => undefined,
      }),
    },
  });
  const [clientEnd, serverEnd] = createInMemoryTransportPair();
  appServer.connect(serverEnd);
  const client = new AgentProtocolClient(clientEnd);
  const { session } = await client.request("session/start", { cwd: root });
  const arrivals: number[] = [];
  let outputTokens = 0;
  let finished!: () => void;
  const turnFinished = new Promise<void>((resolve) => (finished = resolve));
  client.onSessionEvent(({ event }) => {
    if (event.type === "text-delta") arrivals.push(performance.now());
    if (event.type === "turn-finished") {
      outputTokens = event.usage.outputTokens;
      finished();
    }
  });
  const terminal = new TerminalRecorder();
  const instance = withUi
    ? render(<App client={client} sessionId={session.sessionId} route="in-process" cwd={root} />, {
        stdout: terminal as unknown as NodeJS.WriteStream,
        stdin: fakeStdin(),
        exitOnCtrlC: false,
        patchConsole: false,
      })
    : undefined;
  if (!withUi) await client.request("session/attach", { sessionId: session.sessionId });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await client.request("turn/start", { sessionId: session.sessionId, text: "Stream." });
  await turnFinished;
  // Long enough for the frame after the last delta (one frame is ~33 ms).
  await new Promise((resolve) => setTimeout(resolve, 150));
  const firstDelta = arrivals[0] ?? startedAt;
  const lastDelta = arrivals.at(-1) ?? startedAt;
  const frameAfterLast = terminal.writes.find((write) => write.at >= lastDelta);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - startedAt;
  instance?.unmount();
  client.close();
  await appServer.close();
  rmSync(root, { recursive: true, force: true });
  return {
    withUi,
    deltas: arrivals.length,
    outputTokens,
    firstDeltaMs: firstDelta - startedAt,
    streamMs: lastDelta - firstDelta,
    lastTokenLagMs: frameAfterLast === undefined ? null : frameAfterLast.at - lastDelta,
    frames: countFrames(
      terminal.writes.filter((write) => write.at >= firstDelta && write.at <= lastDelta),
    ),
    bytesWritten: terminal.writes.reduce((sum, write) => sum + write.bytes, 0),
    // CPU is read 150 ms after the end; the idle tail costs next to nothing.
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
  };
}

process.once("message", (message: TuiBenchRequest) => {
  void (async () => {
    const baseline = await runTurn(message, false);
    const withUi = await runTurn(message, true);
    process.send?.({ baseline, withUi });
    process.exit(0);
  })();
});
