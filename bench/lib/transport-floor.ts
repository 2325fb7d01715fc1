// The transport floor of a turn: round trips to the serving process's bare echo endpoint
// (echo-server.ts) over the same kind of connection a variant's turns use, with a request of the
// same size, back to back. What a turn costs above it is the gateway's (and the client's) own.
import { once } from "node:events";
import { Agent, request } from "undici";
import WebSocket from "ws";
import { percentile } from "./stats.ts";

export interface TransportFloor {
  transport: "ws" | "http";
  requestBytes: number;
  samples: number;
  p50Ms: number;
  meanMs: number;
}

export async function measureTransportFloor(
  echoUrl: string,
  transport: "ws" | "http",
  requestBytes: number,
  samples = 60,
): Promise<TransportFloor> {
  const payload = JSON.stringify({ type: "response.create", input: "x".repeat(requestBytes) });
  const times: number[] = [];
  if (transport === "ws") {
    const socket = new WebSocket(echoUrl.replace(/^http/, "ws"));
    await once(socket, "open");
    try {
      for (let index = 0; index < samples; index += 1) {
        const startedAt = performance.now();
        const reply = once(socket, "message");
        socket.send(payload);
        await reply;
        times.push(performance.now() - startedAt);
      }
    } finally {
      socket.close();
    }
  } else {
    const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
    try {
      for (let index = 0; index < samples; index += 1) {
        const startedAt = performance.now();
        const response = await request(echoUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: payload,
          dispatcher,
        });
        await response.body.text();
        times.push(performance.now() - startedAt);
      }
    } finally {
      await dispatcher.close();
    }
  }
  // The first round trips open the connection and warm both sides: left out.
  const steady = times.slice(Math.min(10, Math.floor(samples / 4)));
  return {
    transport,
    requestBytes,
    samples: steady.length,
    p50Ms: percentile(steady, 50),
    meanMs: steady.reduce((sum, value) => sum + value, 0) / Math.max(1, steady.length),
  };
}
