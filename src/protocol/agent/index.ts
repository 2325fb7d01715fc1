// The agent protocol (JSON-RPC 2.0 over WebSocket at /v1/agent): schemas and the client, imported
// by the app server and by every surface.
export * from "./agent-events.ts";
export * from "./agent-methods.ts";
export * from "./agent-protocol-client.ts";
export * from "./json-rpc.ts";
export * from "./message-transport.ts";
export * from "./session-events.ts";
