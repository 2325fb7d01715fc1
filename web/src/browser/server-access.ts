// How the page reaches its own server: whether it needs an api key, checking one, and opening the
// agent protocol's WebSocket with it. Same origin only: the page never talks to another host.
import { AGENT_PROTOCOL_PATH } from "../../../src/protocol/agent/agent-methods.ts";

const AGENT_SUBPROTOCOL = "spark-agent";

export async function fetchAppConfig(): Promise<{ apiKeyRequired: boolean }> {
  try {
    const response = await fetch("./app-config.json", { cache: "no-store" });
    const body = (await response.json()) as { apiKeyRequired?: unknown };
    return { apiKeyRequired: body.apiKeyRequired === true };
  } catch {
    return { apiKeyRequired: false };
  }
}

export async function verifyApiKey(key: string): Promise<boolean> {
  if (key === "") return false;
  const response = await fetch("/v1/models", { headers: { authorization: `Bearer ${key}` } });
  return response.ok;
}

export function agentSocket(apiKey: string | undefined): Promise<WebSocket> {
  const url = new URL(AGENT_PROTOCOL_PATH, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  // Browsers cannot set an Authorization header on a WebSocket: the key travels as a subprotocol.
  const protocols =
    apiKey === undefined ? [AGENT_SUBPROTOCOL] : [AGENT_SUBPROTOCOL, `spark-key.${apiKey}`];
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    const fail = (): void => reject(new Error("could not reach the Spark server"));
    socket.addEventListener("open", () => {
      socket.removeEventListener("error", fail);
      resolve(socket);
    });
    socket.addEventListener("error", fail);
  });
}
