// The two endpoints of a `spark serve` gateway from whatever URL the user gave (ws://, http://,
// with or without /v1): the WebSocket one and the HTTP/SSE fallback.
import { SparkError } from "../../protocol/spark-error.ts";

export interface GatewayUrls {
  webSocket: string;
  http: string;
}

export function gatewayUrls(input: string): GatewayUrls {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw new SparkError("invalid_request", `--server ${input} is not a URL; use ws://host:port.`, {
      cause: error,
    });
  }
  const secure = url.protocol === "wss:" || url.protocol === "https:";
  if (!["ws:", "wss:", "http:", "https:"].includes(url.protocol)) {
    throw new SparkError(
      "invalid_request",
      `--server ${input}: use a ws://, wss://, http:// or https:// URL.`,
    );
  }
  const base = url.pathname.replace(/\/+$/, "").replace(/\/v1(\/responses)?$/, "");
  const path = `${base}/v1/responses`;
  return {
    webSocket: `${secure ? "wss" : "ws"}://${url.host}${path}`,
    http: `${secure ? "https" : "http"}://${url.host}${path}`,
  };
}
